//! What the model holds, counted: a diagnostic the shell logs now and then (at debug level),
//! so a controller whose memory grows shows which of its collections grew with it.
//!
//! Invariants: counting reads the model and changes nothing. Data in: the model; data out:
//! the counts, printed as `name=count` pairs.

use std::collections::BTreeMap;
use std::fmt;

use super::Model;

/// The sizes of the model's collections at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sizes {
    /// Workload books, and among them those holding an answer to our write the watch has
    /// not echoed yet, a planned write, a write in flight or waiting, a held pending message.
    pub books: usize,
    pub overlays: usize,
    pub plans: usize,
    pub sending: usize,
    pub held_messages: usize,
    /// Books of finished Workloads, and what keeps them ([`super::WlBook::held_by`]): a
    /// finished Workload's book goes once idle, so these should be few and brief.
    pub finished_books: usize,
    pub finished_held_by: BTreeMap<&'static str, usize>,
    pub job_books: usize,
    pub dirty_workloads: usize,
    pub wakeups: usize,
    pub background_queue: usize,
    /// Workload records in the engine, and preemptors whose searches are kept.
    pub engine_workloads: usize,
    pub kept_searches: usize,
    /// Preemptors whose nomination is kept, and nominations answered from one so far.
    pub kept_nominations: usize,
    pub remembered_nominations: u64,
    /// Actions decided and not yet taken by the shell.
    pub actions: usize,
    /// Scheduling cycles run so far, those among them that admitted a workload, and heads
    /// popped in them (admission attempts).
    pub cycles: u64,
    pub admitting_cycles: u64,
    pub attempts: u64,
    /// Heads not popped because their cohort tree was quiet.
    pub quiet_skipped: u64,
}

impl Model {
    /// Counts what the model holds now.
    pub fn sizes(&self) -> Sizes {
        let mut s = Sizes {
            books: self.wls.len(),
            job_books: self.jobs.len(),
            dirty_workloads: self.dirty_wls.len(),
            wakeups: self.wakeups.len(),
            background_queue: self.background_queue.len(),
            engine_workloads: self.engine.workload_count(),
            kept_searches: self.engine.preemptors_with_kept_searches(),
            kept_nominations: self.engine.kept_nominations(),
            remembered_nominations: self.engine.remembered_nominations(),
            actions: self.actions.len(),
            cycles: self.engine.cycle(),
            admitting_cycles: self.admitting_cycles,
            attempts: self.engine.attempts(),
            quiet_skipped: self.engine.quiet_heads_skipped(),
            ..Sizes::default()
        };
        for (k, b) in &self.wls {
            if self.engine.is_finished(k) {
                s.finished_books += 1;
                let by = b.held_by().unwrap_or("nothing");
                *s.finished_held_by.entry(by).or_default() += 1;
            }
            s.overlays += usize::from(b.overlay.is_some());
            s.plans += usize::from(b.plan.is_some());
            s.sending += usize::from(b.sending.is_some());
            s.held_messages += usize::from(b.held_message.is_some());
        }
        s
    }
}

impl fmt::Display for Sizes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Sizes {
            books,
            overlays,
            plans,
            sending,
            held_messages,
            finished_books,
            finished_held_by,
            job_books,
            dirty_workloads,
            wakeups,
            background_queue,
            engine_workloads,
            kept_searches,
            kept_nominations,
            remembered_nominations,
            actions,
            cycles,
            admitting_cycles,
            attempts,
            quiet_skipped,
        } = self;
        let held_by = finished_held_by
            .iter()
            .map(|(by, n)| format!("{by}:{n}"))
            .collect::<Vec<_>>()
            .join(",");
        write!(
            f,
            "books={books} overlays={overlays} plans={plans} sending={sending} \
             held_messages={held_messages} finished_books={finished_books} \
             finished_held_by=[{held_by}] job_books={job_books} dirty_workloads={dirty_workloads} \
             wakeups={wakeups} background_queue={background_queue} \
             engine_workloads={engine_workloads} kept_searches={kept_searches} \
             kept_nominations={kept_nominations} remembered_nominations={remembered_nominations} \
             actions={actions} cycles={cycles} admitting_cycles={admitting_cycles} \
             attempts={attempts} quiet_skipped={quiet_skipped}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_model_counts_nothing_and_prints_every_name() {
        let m = Model::new(super::super::Settings::default());
        let s = m.sizes();
        assert_eq!(s, Sizes::default());
        let text = s.to_string();
        for name in [
            "books=0",
            "overlays=0",
            "finished_books=0",
            "finished_held_by=[]",
            "sending=0",
            "engine_workloads=0",
            "kept_nominations=0",
            "remembered_nominations=0",
            "actions=0",
            "cycles=0",
            "admitting_cycles=0",
        ] {
            assert!(text.contains(name), "{text}");
        }
    }
}
