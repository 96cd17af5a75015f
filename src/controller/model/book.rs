//! The model's bookkeeping per object: what we wrote and the watch has not echoed yet
//! (overlays), writes in flight or waiting, backoffs. Plus "the newest version we know" of a
//! Workload or Job, and a Workload as it will be once its pending write lands.
//!
//! Invariants:
//! - A Workload with a status write in flight or waiting (`busy`/`plan`) is not re-read into
//!   the engine: the engine already holds the state that write records. When the write ends
//!   the Workload is re-read (and, if the write failed, the engine falls back to what the
//!   API server has).
//! - The newest version is the watch's, or the response to our own last write when the watch
//!   has not caught up (compared by resourceVersion, for the same UID).

use std::borrow::Cow;
use std::ops::Deref;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::batch::v1::Job;
use kube_core::Resource;

use super::Ctx;
use super::plan::{PendingWords, Plan, StatusWrite};
use crate::api::{Workload, WorkloadStatus};
use crate::kube::stored::StoredWorkload;
use crate::manifests::ObjectKey;
use crate::manifests::key::namespace_of;
use crate::scheduler::key::WorkloadKey;
use crate::status;

/// At most this many Workloads read whole stay kept during one turn. The turn after a
/// re-list syncs every Workload in the store, and each read rebuilds a whole Workload from the
/// store's compact form: kept for the turn, 50,000 of them (upstream's large-scale shape)
/// were all held at once. A turn's other readers (a cycle's admissions and their writes)
/// read far fewer.
pub const READ_KEPT: usize = 1024;

/// Per-Workload bookkeeping.
#[derive(Debug, Clone, Default)]
pub struct WlBook {
    /// Response to our last write, until the watch catches up. Kept as the store keeps a
    /// Workload (pod sets as text): when the API server falls behind, every Workload written
    /// in the meantime has one (10,000 at once at a fifth of the large-scale shape), and a
    /// decoded pod template is most of a Workload's memory. Boxed: most books have none.
    pub overlay: Option<Box<StoredWorkload>>,
    /// A write on this Workload is in flight.
    pub busy: bool,
    /// The status to write next (supersedes earlier plans, keeping their effects). Boxed
    /// inside: a book lives as long as its Workload, a write only briefly.
    pub plan: Option<Plan>,
    /// The status write in flight: what later plans build on until it lands, and what
    /// follows when it succeeds. Shared with the write's action, so a write waiting for the
    /// API server (thousands at once when it falls behind) holds its status once.
    pub sending: Option<Arc<StatusWrite>>,
    /// Do not retry before this (after a failed write).
    pub retry_at: Option<Instant>,
    /// Failed writes in a row (the next failure's backoff).
    pub failures: u32,
    /// The Workload is being read back after a conflict (with `busy`): the copy at hand is
    /// the refused one, so no eviction is decided on it, and a status decided meanwhile is
    /// dropped when the read answers.
    pub conflict_read: bool,
    /// We asked for this workload's eviction and have not seen it released since.
    pub evicting: bool,
    /// We created it and the watch has not shown it yet.
    pub unseen: bool,
    /// The read-back after an unknown write outcome failed: read again at this moment.
    pub reread_at: Option<Instant>,
    /// Its Job left the watch and was read from the API server (or is being read).
    pub job_read: bool,
    /// Its Job left the watch still running: read it again then.
    pub job_reread_at: Option<Instant>,
    /// Look at it again then (its maximum execution time runs out).
    pub look_at: Option<Instant>,
    /// When we last planned a pending status for it (see [`PENDING_REFRESH`]).
    pub pending_planned_at: Option<Instant>,
    /// A newer pending message for the same reason, held back until `HeldMessage::at`.
    /// Boxed: few are held at once.
    pub held_message: Option<Box<HeldMessage>>,
    /// Its background write waits in `Model::background_queue`.
    pub queued_background: bool,
    /// The resourceVersion last synced into the engine in full: a watch event that shows
    /// this same version (the echo of a write whose answer was synced) brings nothing new.
    /// 0 when none (etcd's versions start at 1; a plain number keeps the book small).
    pub synced_rv: u64,
    /// `pending_words` of the pending reason and message last found already in the status
    /// a pending write builds on (the planned write's, the one in flight, else the newest
    /// copy's): asked again, `Ctx::pending_change` answers "no change" without reading the
    /// Workload. 0 when none. Cleared whenever that status may change: a new plan
    /// (`Ctx::set_plan`) and every sync (every watch event and write outcome for the
    /// Workload syncs it before the next cycle); sending a plan keeps its status. 32 bits
    /// keep the book within 192 bytes; a collision only delays new words to the next sync.
    pub pending_verified: u32,
}

/// A pending message that only refreshes the words of the same reason is written at most
/// this often per Workload: every evaluation of a waiting workload words its shortfall anew
/// ("5 more needed", "3 more needed"), and writing each one costs the API server a Workload
/// update and an Event while nothing about the workload changed. A new reason, or any other
/// change, is written at once.
pub const PENDING_REFRESH: Duration = Duration::from_secs(5);

/// A pending message waiting for its refresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldMessage {
    pub reason: String,
    pub message: String,
    pub at: Instant,
}

impl WlBook {
    /// A write is in flight or waiting: the engine's picture of it is ahead of the API's.
    pub fn writing(&self) -> bool {
        self.busy || self.plan.is_some()
    }

    pub fn backing_off(&self, now: Instant) -> bool {
        self.retry_at.is_some_and(|t| t > now)
    }

    /// Nothing is under way for its Workload: no copy of ours, no write planned, waiting,
    /// in flight or to retry, no timer, no question out. What is left are memos that only
    /// save work (the version last synced, the pending words checked, when pending words
    /// were last planned) and the count of failed writes in a row, which only the next
    /// failure reads (a retry keeps the book busy through `retry_at`): a book without them
    /// is as correct. (Counting failures here kept the book of every Workload whose last
    /// write was refused, 10,000 at the end of a large-scale run.)
    pub fn idle(&self) -> bool {
        self.held_by().is_none()
    }

    /// The first field that keeps the book from being [`WlBook::idle`], by name.
    pub fn held_by(&self) -> Option<&'static str> {
        // Every field named, so a new one needs a decision here.
        let WlBook {
            overlay,
            busy,
            plan,
            sending,
            retry_at,
            failures: _,
            conflict_read,
            evicting,
            unseen,
            reread_at,
            job_read,
            job_reread_at,
            look_at,
            pending_planned_at: _,
            held_message,
            queued_background,
            synced_rv: _,
            pending_verified: _,
        } = self;
        [
            ("overlay", overlay.is_some()),
            ("busy", *busy),
            ("plan", plan.is_some()),
            ("sending", sending.is_some()),
            ("retry_at", retry_at.is_some()),
            ("conflict_read", *conflict_read),
            ("evicting", *evicting),
            ("unseen", *unseen),
            ("reread_at", reread_at.is_some()),
            ("job_read", *job_read),
            ("job_reread_at", job_reread_at.is_some()),
            ("look_at", look_at.is_some()),
            ("held_message", held_message.is_some()),
            ("queued_background", *queued_background),
        ]
        .into_iter()
        .find_map(|(name, holds)| holds.then_some(name))
    }
}

/// A pending reason and message as one number (never 0), for [`WlBook::pending_verified`].
fn pending_words(reason: &str, message: &str) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    (reason, message).hash(&mut h);
    let full = h.finish();
    ((full >> 32) as u32 ^ full as u32).max(1)
}

/// Per-Job bookkeeping.
#[derive(Debug, Clone, Default)]
pub struct JobBook {
    pub overlay: Option<Arc<Job>>,
    pub busy: bool,
    pub retry_at: Option<Instant>,
    pub failures: u32,
    /// The Workload creation was refused for this reason (reported once).
    pub reported: Option<String>,
}

/// resourceVersion as a number, for "which copy is newer" (etcd's are integers; anything
/// else counts as older than what the watch says).
pub(super) fn rv<K: Resource + ?Sized>(o: &K) -> Option<u64> {
    o.meta().resource_version.as_deref()?.parse().ok()
}

/// Which copy of an object is the newest ([`newest`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Newest {
    /// The watch's.
    Watch,
    /// Ours: the answer to our last write (or creation).
    Ours,
    /// Neither: the object is gone.
    Gone,
}

/// The newer of the watch's copy and ours; drops ours once the watch caught up. When the
/// store does not have the object, ours counts only if we created it and the watch has not
/// shown it yet (`unseen`); otherwise the object is gone.
pub(super) fn newest<S: Resource, O: Deref<Target: Resource>>(
    store: Option<&S>,
    overlay: &mut Option<O>,
    unseen: bool,
) -> Newest {
    match (store, overlay.as_ref()) {
        (None, _) if !unseen => {
            *overlay = None;
            Newest::Gone
        }
        (None, None) => Newest::Gone,
        (Some(_), None) => Newest::Watch,
        (Some(s), Some(o)) => {
            let same_object = s.meta().uid == o.meta().uid;
            match (rv(s), rv(&**o)) {
                (Some(a), Some(b)) if same_object && a < b => Newest::Ours,
                _ => {
                    *overlay = None;
                    Newest::Watch
                }
            }
        }
        (None, Some(_)) => Newest::Ours,
    }
}

/// The Job owning `wl` (controller reference), if any.
pub fn owner_job(wl: &Workload) -> Option<ObjectKey> {
    let ns = namespace_of(&wl.metadata);
    wl.metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.kind == "Job" && o.api_version == "batch/v1" && o.controller == Some(true))
        .map(|o| ObjectKey {
            namespace: Some(ns.to_string()),
            name: o.name.clone(),
        })
}

impl Ctx<'_> {
    /// The cache's copy (read once per turn: the cache does not change during one, so
    /// the copies kept are only a memo, and at most [`READ_KEPT`] of them).
    fn cached_workload(&mut self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        if let Some(w) = self.read.get(key) {
            return w.clone();
        }
        let w = self.cache.workload(key);
        if self.read.len() >= READ_KEPT {
            self.read.clear();
        }
        self.read.insert(key.clone(), w.clone());
        w
    }

    /// The newest copy of the Workload, whole.
    pub(super) fn latest_workload(&mut self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        let store = self.cached_workload(key);
        self.newest_workload(key, store, StoredWorkload::workload_arc)
    }

    /// The newest copy's metadata, spec and status: `spec.podSets` may be empty. The
    /// store keeps pod sets as text and rebuilding them is most of a read, so every reader
    /// that does not look at pods (status decisions, writes, Events) reads this.
    pub(super) fn latest_head(&mut self, key: &WorkloadKey) -> Option<Arc<Workload>> {
        let store = match self.read.get(key) {
            Some(whole) => whole.clone(),
            None => self.cache.workload_head(key),
        };
        self.newest_workload(key, store, StoredWorkload::head)
    }

    /// The newer of the store's copy and our overlay ([`newest`]), ours read by `read_ours`.
    fn newest_workload(
        &mut self,
        key: &WorkloadKey,
        store: Option<Arc<Workload>>,
        read_ours: fn(&StoredWorkload) -> Arc<Workload>,
    ) -> Option<Arc<Workload>> {
        let Some(b) = self.m.wls.get_mut(key) else {
            return store;
        };
        if store.is_some() {
            b.unseen = false;
        }
        match newest(store.as_deref(), &mut b.overlay, b.unseen) {
            Newest::Watch => store,
            Newest::Ours => b.overlay.as_deref().map(read_ours),
            Newest::Gone => None,
        }
    }

    pub(super) fn latest_job(&mut self, key: &ObjectKey) -> Option<Arc<Job>> {
        let store = self.cache.job(key);
        let Some(b) = self.m.jobs.get_mut(key) else {
            return store;
        };
        // We never create Jobs: not in the store means gone.
        match newest(store.as_deref(), &mut b.overlay, false) {
            Newest::Watch => store,
            Newest::Ours => b.overlay.clone(),
            Newest::Gone => None,
        }
    }

    /// The Workload as it will be once its pending write lands (the plan's status).
    pub(super) fn effective_workload(&mut self, key: &WorkloadKey) -> Option<Workload> {
        let w = self.latest_workload(key)?;
        Some(self.with_planned_status(key, w))
    }

    /// [`Ctx::effective_workload`] from the head ([`Ctx::latest_head`]): `spec.podSets`
    /// may be empty.
    pub(super) fn effective_head(&mut self, key: &WorkloadKey) -> Option<Workload> {
        let w = self.latest_head(key)?;
        Some(self.with_planned_status(key, w))
    }

    fn with_planned_status(&self, key: &WorkloadKey, w: Arc<Workload>) -> Workload {
        let planned = self.planned_status(key, &w).map(Cow::into_owned);
        let mut w = Arc::unwrap_or_clone(w);
        if let Some(st) = planned {
            w.status = Some(st);
        }
        w
    }

    /// The status the Workload's writes leave it with: its plan's (words built on the
    /// write in flight's status, else `newest`'s), else the write in flight's; None when
    /// neither is under way.
    fn planned_status<'a>(
        &'a self,
        key: &WorkloadKey,
        newest: &Workload,
    ) -> Option<Cow<'a, WorkloadStatus>> {
        let book = self.m.wls.get(key)?;
        match &book.plan {
            Some(Plan::Write(p)) => Some(Cow::Borrowed(&p.status)),
            Some(Plan::Pending(words)) => self
                .pending_words_status(key, newest, words)
                .map(Cow::Owned),
            None => book.sending.as_deref().map(|p| Cow::Borrowed(&p.status)),
        }
    }

    /// The status a pending plan writes: its words on the status of the write in flight,
    /// else of `newest` (the newest copy). None when the engine does not know the Workload.
    pub(super) fn pending_words_status(
        &self,
        key: &WorkloadKey,
        newest: &Workload,
        words: &PendingWords,
    ) -> Option<WorkloadStatus> {
        let sending = self.m.wls.get(key).and_then(|b| b.sending.as_deref());
        let base = sending.map(|p| &p.status).or(newest.status.as_ref());
        self.words_on(key, base, words)
    }

    /// `words` on `base` (none: an empty status). None when the engine does not know the
    /// Workload.
    pub(super) fn words_on(
        &self,
        key: &WorkloadKey,
        base: Option<&WorkloadStatus>,
        words: &PendingWords,
    ) -> Option<WorkloadStatus> {
        let model = self.m.engine.workload(key)?;
        let mut st = base.cloned().unwrap_or_default();
        status::pending(&mut st, &words.reason, &words.message, model, words.at);
        Some(st)
    }

    /// Would [`status::pending`] change the Workload's effective status (its pending
    /// write's, else the newest object's)? None when it changes nothing or the Workload is
    /// unknown, else whether only the message of the same reason changes. Asked of every
    /// workload a cycle looks at: it clones and allocates nothing.
    pub(super) fn pending_change(
        &mut self,
        key: &WorkloadKey,
        reason: &str,
        message: &str,
    ) -> Option<bool> {
        // Most workloads a cycle looks at wait for the same reason as last time, already
        // written: answered from the book, without reading the Workload.
        let words = pending_words(reason, message);
        if self
            .m
            .wls
            .get(key)
            .is_some_and(|b| b.pending_verified == words)
        {
            // Every debug run checks the remembered answer against the status itself.
            #[cfg(debug_assertions)]
            {
                let fresh = self.on_pending_base(key, |before, model| {
                    status::pending_changes(before, reason, message, model)
                });
                assert_ne!(
                    fresh,
                    Some(true),
                    "{key}: remembered pending words are stale"
                );
            }
            return None;
        }
        let change = self.on_pending_base(key, |before, model| {
            if !status::pending_changes(before, reason, message, model) {
                return None;
            }
            Some(
                before.admission.is_none()
                    && before
                        .condition(crate::api::workload_status::condition::QUOTA_RESERVED)
                        .is_some_and(|c| c.status == "False" && c.reason == reason)
                    && status::same_resource_requests(&before.resource_requests, model),
            )
        })?;
        if change.is_none()
            && let Some(b) = self.m.wls.get_mut(key)
        {
            b.pending_verified = words;
        }
        change
    }

    /// `f` of the status a pending write builds on (the planned or in-flight write's, else
    /// the newest object's) and the engine's view of the Workload; None when either is
    /// unknown.
    fn on_pending_base<R>(
        &mut self,
        key: &WorkloadKey,
        f: impl FnOnce(&WorkloadStatus, &crate::scheduler::model::Workload) -> R,
    ) -> Option<R> {
        let obj = self.latest_head(key)?;
        let model = self.m.engine.workload(key)?;
        let planned = self.planned_status(key, &obj);
        let empty = WorkloadStatus::default();
        Some(f(
            planned.as_deref().or(obj.status.as_ref()).unwrap_or(&empty),
            model,
        ))
    }

    /// Has the tick look at `key`'s book at `at`: call it with every time set in a book
    /// (`retry_at`, `look_at`, `reread_at`, `job_reread_at`, a held message's `at`).
    pub(super) fn wake(&mut self, key: &WorkloadKey, at: Instant) {
        self.m.wakeups.insert((at, key.clone()));
    }

    /// A finished Workload's book goes once it is idle ([`WlBook::idle`]): a cluster keeps
    /// its finished Workloads until they are deleted (50,000 at the end of upstream's
    /// large-scale shape), and nothing more is under way for them. Should anything be,
    /// a new book is made.
    pub(super) fn forget_finished_book(&mut self, key: &WorkloadKey) {
        if self.m.engine.is_finished(key) && self.m.wls.get(key).is_some_and(WlBook::idle) {
            self.m.wls.remove(key);
        }
    }

    pub(super) fn book(&mut self, key: &WorkloadKey) -> &mut WlBook {
        // The key is cloned only for a new book: this runs several times per Workload
        // per turn, on 50,000 of them at large-scale.
        if !self.m.wls.contains_key(key) {
            self.m.wls.insert(key.clone(), WlBook::default());
        }
        self.m.wls.get_mut(key).expect("inserted above")
    }

    pub(super) fn job_book(&mut self, key: &ObjectKey) -> &mut JobBook {
        self.m.jobs.entry(key.clone()).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every Workload the watch has shown keeps a book while it exists, finished ones too
    /// (15,000 in the performance baseline): the parts a write needs only briefly are boxed.
    #[test]
    fn a_book_stays_small() {
        let size = std::mem::size_of::<WlBook>();
        assert!(size <= 192, "WlBook is {size} bytes");
    }
}
