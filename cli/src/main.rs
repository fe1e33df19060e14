//! `kvarn`: the command-line front of Kvarn.

#[macro_use]
mod output;
mod commands;
mod rules_args;

use std::io::IsTerminal;

use clap::{Parser, Subcommand};

/// Kvarn: self-play training and evaluation for Nine, Six and Five Men's Morris.
#[derive(Parser)]
#[command(name = "kvarn", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Referee: legal moves, status and position after a move list or a position.
    Moves(commands::moves::MovesArgs),
    /// Count decision sequences by depth (a removal is its own decision).
    Perft(commands::perft::PerftArgs),
    /// An engine speaking the UCI-style protocol on stdin/stdout: alpha-beta, or a model.
    Engine(commands::engine::EngineArgs),
    /// Two agents play a match: results, Elo with its interval, records.
    Match(commands::matches::MatchArgs),
    /// Play an agent in the terminal.
    Play(commands::play::PlayArgs),
    /// Solve by retrograde analysis into database files (resumable).
    Solve(commands::solve::SolveArgs),
    /// A position's exact value and the value of each of its moves, from the databases.
    Probe(commands::probe::ProbeArgs),
    /// Batch analysis in JSON Lines: the model's values and best moves for positions and
    /// whole games, exact values where tables are given, each move marked, a report.
    Analyze(commands::analyze::AnalyzeArgs),
    /// Sample benchmark positions with exact values from the solver's databases.
    BenchSet(commands::bench_set::BenchSetArgs),
    /// A bank of exact training samples of the whole game, away from the benchmark sets.
    SampleBank(commands::sample_bank::SampleBankArgs),
    /// Score agents.
    #[command(subcommand)]
    Eval(EvalCommand),
    /// Speed measurements.
    #[command(subcommand)]
    Bench(commands::bench::BenchCommand),
    /// Make and inspect model files.
    #[command(subcommand)]
    Model(commands::model::ModelCommand),
    /// Train a player: self-play, training and evaluation, generation after generation.
    Train(commands::train::TrainArgs),
    /// Rate a run's generations and fixed baselines on one Elo scale (maximum likelihood).
    Ladder(commands::ladder::LadderArgs),
    /// The network plays itself with tree search; games are written as shards.
    Selfplay(commands::selfplay::SelfPlayArgs),
    /// A model as ONNX or PyTorch-named safetensors, with a model card, for other front ends.
    Export(commands::export::ExportArgs),
    /// Every key of a run configuration: its default, the values it takes, its meaning.
    Config(commands::config::ConfigArgs),
}

/// What `kvarn eval` scores against.
#[derive(Subcommand)]
enum EvalCommand {
    /// An agent on a solver benchmark set: value accuracy, value-keeping moves, blunders.
    Solver(commands::eval_solver::EvalSolverArgs),
    /// A run's value targets against the exact values: how often each part of them (the
    /// search's, the game's outcome) names a self-play sample's value, by phase.
    Targets(commands::targets::EvalTargetsArgs),
    /// Whether an agent wins won positions of Nine's moving phase (within the no-capture
    /// limit), against the perfect player and the baseline: the perfect player must.
    Convert(commands::convert::EvalConvertArgs),
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let cli = Cli::parse();
    let result = run(cli);
    // A closed standard output (`kvarn moves ... | head -1`) ends the program quietly.
    if let Err(e) = &result
        && output::is_closed_pipe(e)
    {
        std::process::exit(output::CLOSED_PIPE_STATUS);
    }
    result
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Moves(args) => commands::moves::run(&args),
        Command::Perft(args) => commands::perft::run(&args),
        Command::Bench(cmd) => commands::bench::run(&cmd),
        Command::Engine(args) => commands::engine::run(&args),
        Command::Match(args) => commands::matches::run(&args),
        Command::Play(args) => commands::play::run(&args),
        Command::Solve(args) => commands::solve::run(&args),
        Command::Probe(args) => commands::probe::run(&args),
        Command::Analyze(args) => commands::analyze::run(&args),
        Command::BenchSet(args) => commands::bench_set::run(&args),
        Command::SampleBank(args) => commands::sample_bank::run(&args),
        Command::Eval(EvalCommand::Solver(args)) => commands::eval_solver::run(&args),
        Command::Eval(EvalCommand::Targets(args)) => commands::targets::run(&args),
        Command::Eval(EvalCommand::Convert(args)) => commands::convert::run(&args),
        Command::Model(cmd) => commands::model::run(&cmd),
        Command::Train(args) => commands::train::run(&args),
        Command::Ladder(args) => commands::ladder::run(&args),
        Command::Selfplay(args) => commands::selfplay::run_selfplay(&args),
        Command::Export(args) => commands::export::run(&args),
        Command::Config(args) => commands::config::run(&args),
    }
}
