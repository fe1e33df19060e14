//! `kvarn config`: every key of a run configuration with its default, the values it takes
//! and its meaning (`kvarn_train::config_reference`); `--markdown` writes the page
//! `docs/CONFIG.md` is.

use clap::Args;
use kvarn_train::config_reference;

/// Arguments of `kvarn config`.
#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// Markdown, as docs/CONFIG.md holds it, instead of plain text.
    #[arg(long)]
    markdown: bool,
}

/// Prints the reference.
pub fn run(args: &ConfigArgs) -> anyhow::Result<()> {
    let text = if args.markdown {
        config_reference::markdown()
    } else {
        config_reference::text()
    };
    out!("{text}");
    Ok(())
}
