//! The write fence: a write may be sent only while this replica holds the lease and its last
//! successful renewal is younger than the renew deadline.
//!
//! Invariants: the fence closes by itself when the deadline passes (it holds the instant, not
//! a flag the elector must remember to clear, so a starved elector task cannot keep it open);
//! once closed by [`Fence::close`] it never opens again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Why a write was not sent.
#[derive(Debug, Clone, thiserror::Error)]
#[error("not sent: this replica no longer holds the leader-election lease")]
pub struct Fenced;

#[derive(Debug)]
struct Inner {
    base: Instant,
    /// Microseconds after `base` until which writes may go out.
    open_until: AtomicU64,
    closed: AtomicBool,
}

/// Shared between the elector (which extends it) and every write (which checks it).
#[derive(Debug, Clone)]
pub struct Fence(Arc<Inner>);

impl Fence {
    /// A fence that is closed until the elector first extends it.
    pub fn new() -> Fence {
        Fence(Arc::new(Inner {
            base: Instant::now(),
            open_until: AtomicU64::new(0),
            closed: AtomicBool::new(false),
        }))
    }

    /// Ok when a write may be sent now.
    pub fn check(&self) -> Result<(), Fenced> {
        let open = !self.0.closed.load(Ordering::SeqCst)
            && self.micros(Instant::now()) < self.0.open_until.load(Ordering::SeqCst);
        if open { Ok(()) } else { Err(Fenced) }
    }

    /// Writes may go out until `until` (only ever moves forward).
    pub fn extend(&self, until: Instant) {
        self.0
            .open_until
            .fetch_max(self.micros(until), Ordering::SeqCst);
    }

    /// Closes the fence for good.
    pub fn close(&self) {
        self.0.closed.store(true, Ordering::SeqCst);
    }

    fn micros(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.0.base).as_micros() as u64
    }
}

impl Default for Fence {
    fn default() -> Fence {
        Fence::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn opens_while_extended_and_closes_by_itself_or_for_good() {
        let f = Fence::new();
        assert!(f.check().is_err(), "closed until extended");
        f.extend(Instant::now() + Duration::from_secs(60));
        assert!(f.check().is_ok());
        f.extend(Instant::now());
        assert!(f.check().is_ok(), "never moves back");
        let g = Fence::new();
        g.extend(Instant::now() + Duration::from_millis(20));
        std::thread::sleep(Duration::from_millis(30));
        assert!(g.check().is_err(), "the deadline passed");
        f.close();
        f.extend(Instant::now() + Duration::from_secs(60));
        assert!(f.check().is_err(), "closed for good");
    }
}
