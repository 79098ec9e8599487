//! What recall weighed at each moment at the board, kept only while asked
//! (`Runtime::trace_recall`, for `kibitz bench recall --trace`): every one of
//! the player's candidate memories as recall weighed it, so the board
//! model is fitted on exactly what the product sees when it plays.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::relevance::board::Candidate;
use crate::ids::{MatchId, MemoryId};
use crate::triggers::TriggerKind;

#[derive(Debug, Default)]
pub struct RecallTrace {
    on: AtomicBool,
    kept: Mutex<Vec<Traced>>,
}

/// One trigger's candidates.
#[derive(Debug, Clone)]
pub struct Traced {
    pub match_id: MatchId,
    pub trigger: TriggerKind,
    pub candidates: Vec<(MemoryId, Candidate)>,
    /// The moment's cues (tag, weight), strongest first.
    pub cues: Vec<(String, f32)>,
    /// The text its memories were searched by.
    pub query: String,
}

impl RecallTrace {
    /// From now on, every board moment's candidates are kept.
    pub fn start(&self) {
        self.on.store(true, Ordering::Relaxed);
    }

    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    pub fn keep(&self, traced: Traced) {
        if self.is_on() {
            self.kept.lock().expect("trace lock").push(traced);
        }
    }

    /// What was kept for this match, oldest first, and forgotten here.
    pub fn take(&self, match_id: MatchId) -> Vec<Traced> {
        let mut kept = self.kept.lock().expect("trace lock");
        let (mine, rest) = kept.drain(..).partition(|t| t.match_id == match_id);
        *kept = rest;
        mine
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traced(match_id: MatchId, trigger: TriggerKind) -> Traced {
        Traced {
            match_id,
            trigger,
            candidates: Vec::new(),
            cues: Vec::new(),
            query: String::new(),
        }
    }

    #[test]
    fn nothing_is_kept_until_started_and_each_match_takes_only_its_own() {
        let trace = RecallTrace::default();
        let (mine, theirs) = (MatchId::new(), MatchId::new());
        trace.keep(traced(mine, TriggerKind::BeforeMatch));
        assert!(trace.take(mine).is_empty(), "not started: nothing kept");
        trace.start();
        trace.keep(traced(mine, TriggerKind::OnUserMove));
        trace.keep(traced(theirs, TriggerKind::IdleWait));
        trace.keep(traced(mine, TriggerKind::BeforeAgentMove));
        let taken: Vec<TriggerKind> = trace.take(mine).into_iter().map(|t| t.trigger).collect();
        assert_eq!(
            taken,
            [TriggerKind::OnUserMove, TriggerKind::BeforeAgentMove],
            "oldest first"
        );
        assert!(trace.take(mine).is_empty(), "taken once");
        assert_eq!(trace.take(theirs).len(), 1, "the other match's stays until it is taken");
    }
}
