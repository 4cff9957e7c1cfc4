//! `print!`/`println!` for command output that end quietly when the reader has gone
//! (`cosec ... | head`) instead of panicking: the write error becomes
//! [`crate::error::CliError::Stdout`], which `main` treats as a normal end.

/// Like `print!`, returning early with the write error.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::commands::print(&format!($($arg)*))?
    };
}

/// Like `println!`, returning early with the write error.
macro_rules! outln {
    () => {
        $crate::commands::print("\n")?
    };
    ($($arg:tt)*) => {
        $crate::commands::print(&format!("{}\n", format_args!($($arg)*)))?
    };
}
