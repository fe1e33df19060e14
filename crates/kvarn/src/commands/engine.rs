//! `kvarn engine`: the baseline engine on standard input and output, for other programs.

use clap::Args;

/// Arguments of `kvarn engine` (none: everything is set through the protocol).
#[derive(Args, Debug)]
pub struct EngineArgs {}

/// Runs the protocol until `quit` or the end of the input.
pub fn run(_args: &EngineArgs) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    kvarn_eval::protocol::serve(stdin.lock(), std::io::stdout())?;
    Ok(())
}
