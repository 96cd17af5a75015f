//! The pure half of leader election, client-go's rules as a function: given the Lease as just
//! read, what this candidate remembers and the clock, what to do next. No I/O, no clock of its
//! own; the loop in `elector.rs` performs the step.
//!
//! Invariants:
//! - another holder's Lease counts as live until `leaseDurationSeconds` after this candidate
//!   *first saw* that version of it (its own clock, as client-go: no trust in other clocks);
//! - a leader whose last successful renewal is `renewDeadline` old is [`Step::Lost`], whatever
//!   the Lease says, and a leader that finds someone else's name on the Lease is lost too;
//! - every write the step implies is guarded by the version read, so the API server's conflict
//!   check lets exactly one of several racing candidates win.

use std::time::{Duration, Instant};

/// client-go's `JitterFactor`: retries wait between 1 and 1.2 retry periods.
pub const JITTER_FACTOR: f64 = 1.2;

/// Lease duration, renew deadline and retry period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timings {
    pub lease_duration: Duration,
    pub renew_deadline: Duration,
    pub retry_period: Duration,
}

impl Default for Timings {
    /// Upstream's (and controller-runtime's) defaults: 15 s, 10 s, 2 s.
    fn default() -> Timings {
        Timings {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        }
    }
}

impl Timings {
    /// client-go's rules (`leaseDuration > renewDeadline > 1.2 × retryPeriod`, all positive),
    /// with the Configuration's field names in the message.
    pub fn validate(&self) -> Result<(), String> {
        let secs = |d: Duration| format!("{}s", d.as_secs_f64());
        if self.retry_period.is_zero() {
            return Err("leaderElection.retryPeriod must be greater than zero".into());
        }
        if self.lease_duration < Duration::from_secs(1) {
            return Err(format!(
                "leaderElection.leaseDuration ({}) must be at least 1s (the Lease counts whole seconds)",
                secs(self.lease_duration)
            ));
        }
        if self.lease_duration <= self.renew_deadline {
            return Err(format!(
                "leaderElection.leaseDuration ({}) must be greater than leaderElection.renewDeadline ({})",
                secs(self.lease_duration),
                secs(self.renew_deadline)
            ));
        }
        if self.renew_deadline.as_secs_f64() <= self.retry_period.as_secs_f64() * JITTER_FACTOR {
            return Err(format!(
                "leaderElection.renewDeadline ({}) must be greater than leaderElection.retryPeriod ({}) × {JITTER_FACTOR}",
                secs(self.renew_deadline),
                secs(self.retry_period)
            ));
        }
        Ok(())
    }

    /// Each request of the lock: `max(renewDeadline / 2, 1s)`, as controller-runtime sets it.
    pub fn request_timeout(&self) -> Duration {
        (self.renew_deadline / 2).max(Duration::from_secs(1))
    }
}

/// What the election needs of a Lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Empty when released.
    pub holder: String,
    /// `spec.leaseDurationSeconds`, as the holder wrote it.
    pub lease_duration: Duration,
    /// `metadata.resourceVersion`: which version was read, and what a write is guarded by.
    pub version: String,
}

/// The outcome of reading the Lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    Missing,
    Found(Record),
    /// The request failed or timed out: nothing is known.
    Failed,
}

/// What a candidate remembers between attempts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Memory {
    /// The version of the Lease last seen and when (this candidate's clock) it was first seen.
    pub observed: Option<(String, Instant)>,
    /// While leading: when the last successful renewal (or acquisition) was started.
    pub renewed: Option<Instant>,
}

impl Memory {
    /// Records what a read saw: a new version restarts the observation clock.
    pub fn observe(&mut self, read: &Read, now: Instant) {
        if let Read::Found(r) = read
            && self.observed.as_ref().is_none_or(|(v, _)| *v != r.version)
        {
            self.observed = Some((r.version.clone(), now));
        }
    }

    pub fn leading(&self) -> bool {
        self.renewed.is_some()
    }
}

/// What to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// No Lease: create it with this candidate as holder.
    Create,
    /// Released or expired: write this candidate's name over the version read.
    Acquire,
    /// This candidate holds it: write a new renew time over the version read.
    Renew,
    /// Someone else holds a live Lease, or nothing is known: try again after the retry period.
    Wait,
    /// This candidate led and may no longer: stop writing at once.
    Lost,
}

/// The next step for candidate `me`.
pub fn decide(read: &Read, me: &str, memory: &Memory, now: Instant, t: &Timings) -> Step {
    if let Some(renewed) = memory.renewed {
        if past_deadline(renewed, now, t) {
            return Step::Lost;
        }
        if let Read::Found(r) = read
            && !r.holder.is_empty()
            && r.holder != me
        {
            return Step::Lost;
        }
    }
    match read {
        Read::Failed => Step::Wait,
        Read::Missing => Step::Create,
        Read::Found(r) if r.holder == me => {
            if memory.leading() {
                Step::Renew
            } else {
                // Ours from an earlier run of this identity: take it as a fresh acquisition.
                Step::Acquire
            }
        }
        Read::Found(r) if r.holder.is_empty() => Step::Acquire,
        Read::Found(r) => {
            let seen = match &memory.observed {
                Some((v, at)) if *v == r.version => *at,
                _ => now,
            };
            if now.saturating_duration_since(seen) < r.lease_duration {
                Step::Wait
            } else {
                Step::Acquire
            }
        }
    }
}

/// Whether a leader that last renewed at `renewed` is past its deadline at `now`.
pub fn past_deadline(renewed: Instant, now: Instant, t: &Timings) -> bool {
    now.saturating_duration_since(renewed) >= t.renew_deadline
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(holder: &str, version: &str) -> Read {
        Read::Found(Record {
            holder: holder.into(),
            lease_duration: Duration::from_secs(15),
            version: version.into(),
        })
    }

    #[test]
    fn the_table() {
        let t = Timings::default();
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let follower_saw = |v: &str, at: Instant| Memory {
            observed: Some((v.into(), at)),
            renewed: None,
        };
        let leader = |v: &str, renewed: Instant| Memory {
            observed: Some((v.into(), renewed)),
            renewed: Some(renewed),
        };
        let cases: Vec<(&str, Read, Memory, Instant, Step)> = vec![
            (
                "no Lease",
                Read::Missing,
                Memory::default(),
                t0,
                Step::Create,
            ),
            (
                "released",
                rec("", "1"),
                Memory::default(),
                t0,
                Step::Acquire,
            ),
            (
                "held, first seen now",
                rec("b", "1"),
                Memory::default(),
                t0,
                Step::Wait,
            ),
            (
                "held, seen 14s ago",
                rec("b", "1"),
                follower_saw("1", t0),
                t0 + s(14),
                Step::Wait,
            ),
            (
                "held, seen 15s ago: expired",
                rec("b", "1"),
                follower_saw("1", t0),
                t0 + s(15),
                Step::Acquire,
            ),
            (
                "renewed since: a new version restarts the clock",
                rec("b", "2"),
                follower_saw("1", t0),
                t0 + s(20),
                Step::Wait,
            ),
            (
                "unreadable, following",
                Read::Failed,
                Memory::default(),
                t0,
                Step::Wait,
            ),
            (
                "ours, leading",
                rec("me", "1"),
                leader("1", t0),
                t0 + s(2),
                Step::Renew,
            ),
            (
                "ours from an earlier run",
                rec("me", "1"),
                Memory::default(),
                t0,
                Step::Acquire,
            ),
            (
                "unreadable, leading, within the deadline",
                Read::Failed,
                leader("1", t0),
                t0 + s(9),
                Step::Wait,
            ),
            (
                "unreadable, leading, at the deadline",
                Read::Failed,
                leader("1", t0),
                t0 + s(10),
                Step::Lost,
            ),
            (
                "ours, but the deadline passed",
                rec("me", "1"),
                leader("1", t0),
                t0 + s(11),
                Step::Lost,
            ),
            (
                "someone else's name while leading",
                rec("b", "2"),
                leader("1", t0),
                t0 + s(1),
                Step::Lost,
            ),
            (
                "deleted while leading: recreate",
                Read::Missing,
                leader("1", t0),
                t0 + s(1),
                Step::Create,
            ),
        ];
        for (what, read, memory, now, want) in cases {
            assert_eq!(decide(&read, "me", &memory, now, &t), want, "{what}");
        }
    }

    #[test]
    fn observing_keeps_the_first_sighting_of_a_version() {
        let t0 = Instant::now();
        let mut m = Memory::default();
        m.observe(&rec("b", "1"), t0);
        m.observe(&rec("b", "1"), t0 + Duration::from_secs(5));
        assert_eq!(m.observed, Some(("1".into(), t0)));
        m.observe(&Read::Failed, t0 + Duration::from_secs(6));
        m.observe(&rec("b", "2"), t0 + Duration::from_secs(7));
        assert_eq!(m.observed, Some(("2".into(), t0 + Duration::from_secs(7))));
    }

    #[test]
    fn timings_are_validated_as_client_go_does() {
        let s = Duration::from_secs;
        assert_eq!(Timings::default().validate(), Ok(()));
        assert_eq!(Timings::default().request_timeout(), s(5));
        let t = |l, r, p| Timings {
            lease_duration: s(l),
            renew_deadline: s(r),
            retry_period: s(p),
        };
        let e = t(10, 10, 2).validate().unwrap_err();
        assert!(e.contains("leaderElection.leaseDuration (10s) must be greater than leaderElection.renewDeadline (10s)"), "{e}");
        let e = t(15, 2, 2).validate().unwrap_err();
        assert!(e.contains("leaderElection.renewDeadline (2s) must be greater than leaderElection.retryPeriod (2s)"), "{e}");
        assert!(t(15, 10, 0).validate().unwrap_err().contains("retryPeriod"));
        assert_eq!(t(3, 2, 1).validate(), Ok(()));
        assert_eq!(t(3, 2, 1).request_timeout(), s(1));
    }
}
