//! `kvarn engine`: the baseline engine, or a model's search with `--model`, on standard
//! input and output, for other programs.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use kvarn_engine::protocol::{self, AlphaBetaMaker, EngineMaker};
use kvarn_model::{DeviceChoice, file};
use kvarn_selfplay::{Endgame, NetEngineMaker, net_agent};

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn engine`: the rules to start with (`setoption` can change them).
#[derive(Args, Debug)]
pub struct EngineArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Serve this model's tree search (a .kvmodel or .safetensors file) instead of the
    /// alpha-beta engine; `setoption name Weights` changes it.
    #[arg(long)]
    model: Option<PathBuf>,
    /// With --model: probe the endgame databases in this folder (`kvarn solve`) in the search.
    #[arg(long, requires = "model")]
    db: Option<PathBuf>,
    /// With --model: player settings over the model's measured player, e.g.
    /// `symmetries=1,hash=64` (`kvarn config` lists them; `setoption` changes them too).
    #[arg(long, requires = "model")]
    player: Option<String>,
}

/// Runs the protocol until `quit` or the end of the input (which stops any search).
pub fn run(args: &EngineArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let maker: Box<dyn EngineMaker> = match &args.model {
        None => Box::new(AlphaBetaMaker::default()),
        Some(model) => {
            let device = DeviceChoice::Cpu.device()?;
            // Refused here, before the protocol starts, where the model is unreadable or of
            // other rules, or a setting is wrong.
            let (_, header) = file::load_for_rules(model, &rules, &device)
                .with_context(|| format!("loading the model {}", model.display()))?;
            let given = args.player.as_deref().unwrap_or("");
            let player = net_agent::model_player(&header, &rules, given).context("--player")?;
            let endgame = match &args.db {
                Some(dir) => Some(Arc::new(Endgame::open(dir, rules, None).with_context(
                    || format!("loading the endgame databases in {}", dir.display()),
                )?)),
                None => None,
            };
            Box::new(NetEngineMaker::new(model.clone(), device, player, endgame))
        }
    };
    // Read by a thread of the protocol's own (the lock on stdin cannot move there).
    let stdin = std::io::BufReader::new(std::io::stdin());
    protocol::serve_with(rules, maker, stdin, std::io::stdout())?;
    Ok(())
}
