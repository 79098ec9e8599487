//! The recall log: which memory a trigger handed over, with its score and
//! reason, written in the trigger log's batch; and a memory's tags as SQL
//! keeps them (a JSON array), shared by the memory rows and their versions.

use chrono::Utc;

use super::script::Script;
use super::{Arg, ts};
use crate::ids::{MatchId, MemoryId};

pub(crate) fn tags_json(tags: &[String]) -> String {
    serde_json::to_string(tags).expect("tags serialise")
}

/// One memory handed over by the subconscious: its id, its score, and why.
pub type RecallEntry = (MemoryId, f32, String);

/// Logs the recalls of one trigger and bumps each memory's count, inside the
/// caller's batch (the trigger log's: committed with it).
pub(crate) fn recall_statements(script: &mut Script, match_id: MatchId, trigger: &str, recalled: &[RecallEntry]) {
    if recalled.is_empty() {
        return;
    }
    // Two statements for all of them, not two each (the rows share the batch's INSERT).
    let (now, match_id) = (ts(Utc::now()), match_id.to_string());
    for (id, score, reason) in recalled {
        script.insert(
            "INSERT INTO recall_log (memory_id, match_id, trigger, score, reason, recalled_at) VALUES ",
            [
                Arg::text(id.to_string()),
                Arg::text(match_id.as_str()),
                Arg::text(trigger),
                Arg::Real(f64::from(*score)),
                Arg::text(reason.as_str()),
                Arg::text(now.as_str()),
            ],
        );
    }
    let update = script.statement("UPDATE memories SET recall_count = recall_count + 1, last_recalled_at = ");
    update.text(now.as_str()).push(" WHERE id IN (");
    for (i, (id, _, _)) in recalled.iter().enumerate() {
        update.push(if i == 0 { "" } else { ", " }).text(id.to_string());
    }
    update.push(")");
}
