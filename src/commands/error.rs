//! How a command ends, and the exit status of each ending: the one place the exit codes are
//! decided (the top-level `--help`, each command's `--help` and the README say the same).
//!
//! | status | meaning |
//! |---|---|
//! | 0 | success; also when stdout was closed early (`kubectl kueue list workload \| head`), as kubectl ends |
//! | 1 | an error: bad input (naming file, object and field), a cluster failure, a bug |
//! | 2 | a usage error: clap rejected the command line |
//! | 3 | the command's own "not reached", see its `--help`: `simulate` found no fixpoint; `submit --wait` ended before the state (timeout, or the Job failed) |
//!
//! A command returns `Ok(`[`Outcome`]`)` when it ran to its end (a "no fixpoint" is an
//! answer, not an error) and `Err(`[`CliError`]`)` otherwise; `main` maps both through
//! [`ExitStatus`].

use std::fmt;

/// The process exit statuses, as documented above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    Success,
    Error,
    Usage,
    /// The command's own "not reached" (see its `--help`).
    NotReached,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Error => 1,
            ExitStatus::Usage => 2,
            ExitStatus::NotReached => 3,
        }
    }
}

/// What a command that ran to its end reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It did what it was asked.
    Success,
    /// `simulate`: workloads keep preempting each other, or the cycle limit was reached.
    NoFixpoint,
    /// `submit --wait`: `--timeout` passed before the Workload reached the state.
    WaitTimedOut,
    /// `submit --wait`: the Job failed.
    JobFailed,
}

impl Outcome {
    pub fn exit_status(self) -> ExitStatus {
        match self {
            Outcome::Success => ExitStatus::Success,
            Outcome::NoFixpoint | Outcome::WaitTimedOut | Outcome::JobFailed => {
                ExitStatus::NotReached
            }
        }
    }

    /// The outcome of several steps: the first with the highest exit status.
    pub fn or_worse(self, other: Outcome) -> Outcome {
        if other.exit_status() > self.exit_status() {
            other
        } else {
            self
        }
    }
}

/// What kind of failure, which decides the exit status and whether anything is said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input, a cluster failure, a bug: `error: ...` on stderr, exit 1.
    Failed,
    /// The command line itself is wrong: exit 2.
    Usage,
    /// Stdout was closed (the reader of a pipe went away): nothing more to say, exit 0.
    ClosedPipe,
}

/// A command's error, with its kind. Any error converts into it (`?` works on every
/// `std::error::Error` and on `anyhow::Error`); a broken pipe anywhere in the chain makes it
/// a [`ErrorKind::ClosedPipe`].
pub struct CliError {
    kind: ErrorKind,
    error: anyhow::Error,
}

/// What `run` of every command returns.
pub type CliResult = Result<Outcome, CliError>;

impl CliError {
    pub fn usage(error: impl Into<anyhow::Error>) -> CliError {
        CliError {
            kind: ErrorKind::Usage,
            error: error.into(),
        }
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    pub fn exit_status(&self) -> ExitStatus {
        match self.kind {
            ErrorKind::Failed => ExitStatus::Error,
            ErrorKind::Usage => ExitStatus::Usage,
            ErrorKind::ClosedPipe => ExitStatus::Success,
        }
    }

    /// Says what failed on stderr (nothing for a closed pipe).
    pub fn report(&self) {
        if self.kind != ErrorKind::ClosedPipe {
            crate::output::print_error(&self.error);
        }
    }
}

// `CliError` must not implement `std::error::Error`: this impl would then overlap with
// `From<T> for T`.
impl<E: Into<anyhow::Error>> From<E> for CliError {
    fn from(error: E) -> CliError {
        let mut error = error.into();
        if let Some(hint) = crate::kube::client::timeout_hint(&error) {
            error = error.context(hint);
        }
        let closed = error.chain().any(|cause| {
            cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        });
        CliError {
            kind: if closed {
                ErrorKind::ClosedPipe
            } else {
                ErrorKind::Failed
            },
            error,
        }
    }
}

impl fmt::Debug for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {:#}", self.kind, self.error)
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;
    use clap::Parser;

    #[test]
    fn exit_codes_are_the_documented_ones() {
        assert_eq!(Outcome::Success.exit_status().code(), 0);
        assert_eq!(Outcome::NoFixpoint.exit_status().code(), 3);
        assert_eq!(Outcome::WaitTimedOut.exit_status().code(), 3);
        assert_eq!(Outcome::JobFailed.exit_status().code(), 3);
        assert_eq!(CliError::from(anyhow::anyhow!("x")).exit_status().code(), 1);
        assert_eq!(
            CliError::usage(anyhow::anyhow!("x")).exit_status().code(),
            2
        );
        // clap's own usage errors exit with the same status.
        let clap_error =
            super::super::Cli::try_parse_from(["kubectl-kueue", "--no-such-flag"]).unwrap_err();
        assert_eq!(clap_error.exit_code(), i32::from(ExitStatus::Usage.code()));
    }

    #[test]
    fn a_closed_pipe_anywhere_in_the_chain_ends_quietly() {
        let pipe = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let e = CliError::from(Err::<(), _>(pipe).context("printing").unwrap_err());
        assert_eq!(e.kind(), ErrorKind::ClosedPipe);
        assert_eq!(e.exit_status(), ExitStatus::Success);
        let other = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(CliError::from(other).kind(), ErrorKind::Failed);
    }

    #[test]
    fn the_worst_outcome_wins() {
        assert_eq!(
            Outcome::Success.or_worse(Outcome::WaitTimedOut),
            Outcome::WaitTimedOut
        );
        assert_eq!(
            Outcome::JobFailed.or_worse(Outcome::Success),
            Outcome::JobFailed
        );
    }
}
