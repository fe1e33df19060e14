//! `kvarn engine`: the baseline engine on standard input and output, for other programs.

use clap::Args;

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn engine`: the rules to start with (`setoption` can change them).
#[derive(Args, Debug)]
pub struct EngineArgs {
    #[command(flatten)]
    rules: RulesArgs,
}

/// Runs the protocol until `quit` or the end of the input (which stops any search).
pub fn run(args: &EngineArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    // Read by a thread of the protocol's own (the lock on stdin cannot move there).
    let stdin = std::io::BufReader::new(std::io::stdin());
    kvarn_eval::protocol::serve(rules, stdin, std::io::stdout())?;
    Ok(())
}
