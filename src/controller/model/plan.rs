//! What goes into the model and what comes out, as data. Inputs: watch notices, the outcome
//! of each write the model asked for, ticks. Outputs ([`Action`]): writes with everything
//! needed to perform them, Events, metric updates. The shell performs actions and reports
//! every write's outcome back as an [`Input`]; it decides nothing.
//!
//! Invariants: a Workload has at most one write in flight (status, patch or finalizer
//! removal), and a Job at most one write sequence; every write action is answered by exactly
//! one input carrying its key.

use std::sync::Arc;
use std::time::Instant;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::ObjectReference;
use serde_json::Value;

use crate::api::{ClusterQueueStatus, LocalQueueStatus, Workload, WorkloadStatus};
use crate::integration::job::JobStep;
use crate::kube::watch::Kind;
use crate::manifests::ObjectKey;
use crate::metrics::MetricUpdate;
use crate::scheduler::key::WorkloadKey;
use crate::scheduler::model::Millis;

/// The clock at one moment: wall time for what is written (condition times, queue times),
/// a monotonic instant for backoffs and write pacing.
#[derive(Debug, Clone, Copy)]
pub struct Now {
    pub wall: Millis,
    pub instant: Instant,
}

/// Why a write failed, as far as the model cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    /// 404: the object is gone.
    NotFound,
    /// 409: someone changed it meanwhile (or it exists already, for a create).
    Conflict,
    /// 422: not (yet) in a state that allows the change.
    Invalid,
    /// The API server answered with another error (the write did not happen), with the
    /// error's text for the log.
    Failed(String),
    /// No answer, or one that does not say whether the write happened (timeout, connection
    /// reset, 504): the API server may have committed it.
    Unknown(String),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::NotFound => f.write_str("not found"),
            WriteError::Conflict => f.write_str("conflict"),
            WriteError::Invalid => f.write_str("invalid"),
            WriteError::Failed(e) | WriteError::Unknown(e) => f.write_str(e),
        }
    }
}

pub type WriteResult<T> = Result<T, WriteError>;

/// What reaches the model. (Short-lived, one per notice or write: their size does not
/// matter.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Input {
    /// A watched object was added, changed or deleted: the cache has its current state.
    Changed {
        kind: Kind,
        key: ObjectKey,
    },
    /// A kind was (re-)listed: everything of it needs a look (deletions during an outage
    /// have no notice of their own).
    Relisted(Kind),
    /// The loop's timer: backoffs that ran out are looked at again.
    Tick,
    WorkloadWritten {
        key: WorkloadKey,
        result: WriteResult<Workload>,
    },
    WorkloadCreated {
        job: ObjectKey,
        result: WriteResult<Workload>,
    },
    /// A Workload's metadata or spec patched (finalizer removed, queue or podSets changed).
    WorkloadPatched {
        key: WorkloadKey,
        result: WriteResult<Workload>,
    },
    /// A Job write sequence ended: the last Job returned (if any step ran), and the Event
    /// that is due because its first step succeeded.
    JobWritten {
        key: ObjectKey,
        result: WriteResult<Option<Job>>,
        event: Option<EventText>,
    },
    QueueWritten {
        key: ObjectKey,
        ok: bool,
    },
    /// A ClusterQueue's or ResourceFlavor's finalizers written.
    QueueFinalizersWritten {
        kind: Kind,
        name: String,
        result: WriteResult<()>,
    },
    /// A Job read past the cache (`Ok(None)`: it is gone), for the Workload `workload`.
    JobRead {
        key: ObjectKey,
        workload: WorkloadKey,
        result: WriteResult<Option<Job>>,
    },
    /// The re-read of a Workload whose status write had an unknown outcome: what the API
    /// server holds now (`Ok(None)`: it is gone).
    WorkloadRead {
        key: WorkloadKey,
        result: WriteResult<Option<Workload>>,
    },
}

/// The words of an Event, before it is attached to an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventText {
    pub warning: bool,
    pub reason: String,
    pub note: String,
}

impl EventText {
    pub fn normal(reason: impl Into<String>, note: impl Into<String>) -> EventText {
        EventText {
            warning: false,
            reason: reason.into(),
            note: note.into(),
        }
    }

    pub fn warning(reason: impl Into<String>, note: impl Into<String>) -> EventText {
        EventText {
            warning: true,
            ..EventText::normal(reason, note)
        }
    }
}

/// Something to do once a Workload status write succeeded.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// An Event on the Workload written.
    Event(EventText),
    /// An Event on another Workload (the preemptor).
    EventOn {
        workload: WorkloadKey,
        text: EventText,
    },
    /// An Event on the Workload's Job.
    JobEvent(EventText),
    Metric(MetricUpdate),
    /// The reservation was cleared: the engine gives the quota back.
    ReleaseQuota,
    /// `Finished` was written (with this reason): the engine gives the quota back.
    FinishQuota {
        reason: String,
    },
    /// Drop the `resource-in-use` finalizer next.
    RemoveFinalizer,
}

/// A Workload status to write and what follows a successful write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusWrite {
    pub status: WorkloadStatus,
    pub effects: Vec<Effect>,
    /// The write admits the workload (a failure gives the quota back).
    pub admits: bool,
    /// Only says why a workload without a reservation waits: sent in the background lane
    /// (see [`super::workloads::BACKGROUND_IN_FLIGHT`]), where a newer decision can still
    /// replace it.
    pub background: bool,
}

impl StatusWrite {
    pub fn new(status: WorkloadStatus, effects: Vec<Effect>) -> StatusWrite {
        StatusWrite {
            status,
            effects,
            admits: false,
            background: false,
        }
    }

    /// A write that only says why a workload waits (see [`StatusWrite::background`]).
    pub fn pending(status: WorkloadStatus, effects: Vec<Effect>) -> StatusWrite {
        StatusWrite {
            background: true,
            ..StatusWrite::new(status, effects)
        }
    }

    /// Folds a later write into one not sent yet: the later status wins, effects add up.
    pub fn supersede(&mut self, mut later: StatusWrite) {
        let mut effects = std::mem::take(&mut self.effects);
        effects.append(&mut later.effects);
        later.effects = effects;
        later.admits |= self.admits;
        later.background &= self.background;
        *self = later;
    }
}

/// A Workload's next status write, as its book keeps it until it is sent.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Built: the status and what follows its write.
    Write(Box<StatusWrite>),
    /// Only why a Workload without a reservation waits (a background write): kept as its
    /// words, the status built from them when it is sent or read. When the API server falls
    /// behind, such writes wait by the tens of thousands (34,000 at once at upstream's
    /// large-scale shape, after a re-list brought 27,000 Workloads in together), and a
    /// built pending status (its conditions and its requests per pod set) is several times
    /// the size of its words.
    Pending(Box<PendingWords>),
}

/// A pending write's words: `QuotaReserved=False` with this reason and message, decided at
/// `at` (the condition's transition time, if it changes), on whatever status the write
/// builds on when it is built (the write in flight's, else the newest copy's). Its write is
/// followed by a Warning Event with the same words, after those of earlier words it replaced.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingWords {
    pub reason: String,
    pub message: String,
    pub at: Millis,
    /// What follows the write before this one's own Event: the effects of the earlier
    /// words it replaced (usually none).
    pub earlier_effects: Vec<Effect>,
}

impl PendingWords {
    /// Everything that follows its write, its own Event last.
    pub fn effects(self) -> Vec<Effect> {
        let mut effects = self.earlier_effects;
        effects.push(Effect::Event(EventText::warning(self.reason, self.message)));
        effects
    }

    /// What follows the write of `later` words that replace these before either is written:
    /// these words' effects, less the Warning Events of `later`'s reason.
    pub fn effects_before(self, later: &PendingWords) -> Vec<Effect> {
        let mut effects = self.effects();
        drop_warnings_of(&mut effects, &later.reason);
        effects
    }
}

/// Drops the Warning Events of `reason` from effects waiting for a write: later words of
/// that reason say it anew, their own Event last, as held words skip the Events of the words
/// they replace, and as an Event recorder folds Events of one reason on one object. Kept,
/// a Workload worded anew in every cycle while its write waited kept an Event per cycle:
/// 78 MiB of them at the peak of a large-scale run, all sent once its write went out.
pub fn drop_warnings_of(effects: &mut Vec<Effect>, reason: &str) {
    effects.retain(|e| !matches!(e, Effect::Event(t) if t.warning && t.reason == reason));
}

impl Plan {
    /// Sent in the background lane (see [`StatusWrite::background`]).
    pub fn background(&self) -> bool {
        match self {
            Plan::Write(w) => w.background,
            Plan::Pending(_) => true,
        }
    }
}

/// What the model asks the shell to do. Writes beyond a lane's limit wait in the shell as
/// actions (tens of thousands when the API server falls behind), so the large parts are boxed:
/// an action is a few words, not a whole Workload.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Server-side apply of the Workload's status (`object`: the version it builds on).
    WriteWorkloadStatus {
        key: WorkloadKey,
        object: Arc<Workload>,
        /// Shared with the book's `sending` until the write ends: a write waiting for the
        /// API server holds its status once, not twice.
        write: Arc<StatusWrite>,
    },
    CreateWorkload {
        job: ObjectKey,
        workload: Box<Workload>,
    },
    /// Remove `finalizer`, guarded by `object`'s resourceVersion.
    RemoveFinalizer {
        key: WorkloadKey,
        object: Arc<Workload>,
        finalizer: &'static str,
    },
    /// A merge patch of the Workload's spec or metadata, guarded by `object`'s
    /// resourceVersion.
    PatchWorkload {
        key: WorkloadKey,
        object: Arc<Workload>,
        patch: Value,
    },
    /// Delete the Workload, guarded by `object`'s UID and resourceVersion; answered by
    /// [`Input::WorkloadPatched`] (the object as the deletion left it).
    DeleteWorkload {
        key: WorkloadKey,
        object: Arc<Workload>,
    },
    /// Job writes in order; `event` is published once the first one succeeded.
    WriteJob {
        key: ObjectKey,
        steps: Vec<JobStep>,
        event: Option<EventText>,
    },
    WriteClusterQueueStatus {
        key: ObjectKey,
        status: ClusterQueueStatus,
    },
    WriteLocalQueueStatus {
        key: ObjectKey,
        status: LocalQueueStatus,
    },
    /// Set the finalizers of a ClusterQueue or ResourceFlavor (`kind`) to `finalizers`,
    /// guarded by `resource_version`: the `resource-in-use` finalizer added on first sight,
    /// dropped once a deleted object holds nothing.
    WriteQueueFinalizers {
        kind: Kind,
        name: String,
        resource_version: Option<String>,
        finalizers: Vec<String>,
    },
    /// Read a Workload from the API server (not the cache): its last status write's outcome
    /// is unknown.
    ReadWorkload {
        key: WorkloadKey,
    },
    /// Read a Job from the API server: it left the (queue-labelled) watch while its
    /// Workload stays, so it was deleted or lost its label.
    ReadJob {
        key: ObjectKey,
        workload: WorkloadKey,
    },
    /// Publish an Event (fire and forget).
    Event {
        about: ObjectReference,
        text: EventText,
    },
    Metric(MetricUpdate),
}
