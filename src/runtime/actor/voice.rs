//! The persona's talk in a match: its mood, what it said lately (so a
//! line is not said twice), what it recalled lately (so a memory is not
//! given twice), how much the player wants it to talk, and the model's
//! words being composed. Only this file changes them.

use std::sync::Arc;

use super::words::Composing;
use crate::subconscious::RecallState;
use crate::triggers::{SAID_KEPT, TalkMode};

pub(super) struct Voice {
    emotion: String,
    /// The persona's latest messages in this match (`GameContext::said`).
    /// Shared with each trigger's context, copied only when it grows.
    said: Arc<Vec<String>>,
    recall: RecallState,
    /// How much the player wants this persona to talk (remembered per persona).
    mode: TalkMode,
    /// The model's words being composed for a trigger, if any.
    composing: Option<Composing>,
}

impl Voice {
    pub(super) fn new(emotion: String, said: Vec<String>, mode: TalkMode) -> Voice {
        Voice {
            emotion,
            said: Arc::new(said),
            recall: RecallState::default(),
            mode,
            composing: None,
        }
    }

    pub(super) fn emotion(&self) -> &str {
        &self.emotion
    }

    pub(super) fn feel(&mut self, emotion: String) {
        self.emotion = emotion;
    }

    pub(super) fn said(&self) -> Arc<Vec<String>> {
        self.said.clone()
    }

    /// The persona's own lines just said: the latest `SAID_KEPT` are kept.
    pub(super) fn heard_itself<'a>(&mut self, lines: impl Iterator<Item = &'a str>) {
        let mut lines = lines.peekable();
        if lines.peek().is_none() {
            return;
        }
        let said = Arc::make_mut(&mut self.said);
        said.extend(lines.map(str::to_string));
        let over = said.len().saturating_sub(SAID_KEPT);
        said.drain(..over);
    }

    pub(super) fn mode(&self) -> TalkMode {
        self.mode
    }

    pub(super) fn set_mode(&mut self, mode: TalkMode) {
        self.mode = mode;
    }

    /// The mood a trigger speaks in, and the recall state it updates.
    pub(super) fn mood_and_recall(&mut self) -> (&str, &mut RecallState) {
        (&self.emotion, &mut self.recall)
    }

    /// The talk as SQL holds it, after a write failed.
    pub(super) fn restore(&mut self, emotion: String, mode: TalkMode) {
        self.emotion = emotion;
        self.mode = mode;
    }

    pub(super) fn composing(&self) -> Option<&Composing> {
        self.composing.as_ref()
    }

    pub(super) fn composing_mut(&mut self) -> Option<&mut Composing> {
        self.composing.as_mut()
    }

    pub(super) fn start_composing(&mut self, composing: Composing) {
        self.composing = Some(composing);
    }

    pub(super) fn take_composing(&mut self) -> Option<Composing> {
        self.composing.take()
    }
}
