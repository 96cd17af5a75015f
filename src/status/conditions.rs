//! The condition and message rules every status write follows: upstream's
//! `apimeta.SetStatusCondition`, the "Previously: ..." reset of `Evicted`/`Preempted`,
//! message truncation, and "the same apart from transition times".

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use crate::manifests::convert::time_from_millis;
use crate::scheduler::model::Millis;

/// upstream's `apimeta.SetStatusCondition`: the transition time moves only when the status
/// flips; reason and message always follow.
pub fn set_condition(
    conds: &mut Vec<Condition>,
    type_: &str,
    status: bool,
    reason: &str,
    message: &str,
    now: Millis,
) {
    let status = if status { "True" } else { "False" };
    match conds.iter_mut().find(|c| c.type_ == type_) {
        Some(c) => {
            if c.status != status {
                c.status = status.to_string();
                c.last_transition_time = time_from_millis(now);
            }
            c.reason = reason.to_string();
            c.message = message.to_string();
        }
        None => conds.push(Condition {
            type_: type_.to_string(),
            status: status.to_string(),
            reason: reason.to_string(),
            message: message.to_string(),
            last_transition_time: time_from_millis(now),
            observed_generation: None,
        }),
    }
}

/// Upstream's limit on condition messages.
pub const MAX_CONDITION_MESSAGE: usize = 32 * 1024;

/// Cuts `message` to `limit` bytes (on a character boundary), ending in " ..." when cut.
pub fn truncate_message(message: &str, limit: usize) -> String {
    if message.len() <= limit {
        return message.to_string();
    }
    let suffix = " ...";
    let mut cut = limit - suffix.len();
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{suffix}", &message[..cut])
}

/// `Evicted`/`Preempted` go back to False with "Previously: ..." on a new reservation.
pub fn reset_active(conds: &mut Vec<Condition>, type_: &str, now: Millis) {
    if let Some(c) = conds
        .iter()
        .find(|c| c.type_ == type_ && c.status == "True")
    {
        let message =
            truncate_message(&format!("Previously: {}", c.message), MAX_CONDITION_MESSAGE);
        set_condition(conds, type_, false, "QuotaReserved", &message, now);
    }
}

/// Are two statuses the same apart from condition transition times (which
/// [`set_condition`] keeps when nothing changed anyway)?
pub fn same_ignoring_times<T: serde::Serialize>(a: &T, b: &T) -> bool {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("lastTransitionTime");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let (mut x, mut y) = (
        serde_json::to_value(a).unwrap_or_default(),
        serde_json::to_value(b).unwrap_or_default(),
    );
    strip(&mut x);
    strip(&mut y);
    x == y
}

/// Does `held` (what the API server has) carry what `written` says: the same admission and
/// every condition of `written` with the same status and reason? Used to tell whether a
/// status write whose answer was lost had landed.
pub fn holds(
    held: &Option<crate::api::WorkloadStatus>,
    written: &crate::api::WorkloadStatus,
) -> bool {
    let Some(held) = held else {
        return written.conditions.is_empty() && written.admission.is_none();
    };
    held.admission == written.admission
        && written.conditions.iter().all(|w| {
            held.condition(&w.type_)
                .is_some_and(|h| h.status == w.status && h.reason == w.reason)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_matches_upstream() {
        assert_eq!(truncate_message("short", 1024), "short");
        let long = "x".repeat(2000);
        let t = truncate_message(&long, 1024);
        assert_eq!(t.len(), 1024);
        assert!(t.ends_with(" ..."));
    }

    #[test]
    fn the_transition_time_moves_only_when_the_status_flips() {
        let mut conds = Vec::new();
        set_condition(&mut conds, "Admitted", true, "Admitted", "a", 1_000);
        let first = conds[0].last_transition_time.clone();
        set_condition(&mut conds, "Admitted", true, "Admitted", "b", 9_000);
        assert_eq!(conds[0].last_transition_time, first);
        assert_eq!(conds[0].message, "b");
        set_condition(&mut conds, "Admitted", false, "NoReservation", "c", 9_000);
        assert_ne!(conds[0].last_transition_time, first);
    }
}
