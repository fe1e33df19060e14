//! Standard output that ends the program quietly when its reader has gone.
//!
//! `println!` panics when standard output is a closed pipe (`kvarn perft | head -1`),
//! because Rust ignores SIGPIPE. Every command prints through [`outln!`] and [`out!`]
//! instead: on a closed pipe the program exits at once with status 141, as a program
//! ended by SIGPIPE does, and without a message; any other failure to write is reported
//! on standard error with status 1.

use std::io::{self, Write};

/// The exit status of a program ended by SIGPIPE (128 + 13), as shells report it.
pub const CLOSED_PIPE_STATUS: i32 = 141;

/// Writes `args` to standard output and flushes it; exits as described above when that
/// fails.
pub fn print(args: std::fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        failed(&e);
    }
}

/// Ends the program after a failure to write to standard output: quietly with status 141
/// where the reader has gone, else with the error on standard error and status 1.
pub fn failed(e: &io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(CLOSED_PIPE_STATUS);
    }
    eprintln!("Error: writing to standard output: {e}");
    std::process::exit(1);
}

/// Whether `e` comes from a closed standard output (a broken pipe somewhere in its chain).
pub fn is_closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// `println!` to standard output that ends the program quietly on a closed pipe.
macro_rules! outln {
    () => {
        $crate::output::print(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` to standard output that ends the program quietly on a closed pipe.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::print(format_args!($($arg)*))
    };
}
