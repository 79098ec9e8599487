//! What a language model may not take away. With a model, the scripted
//! brain's decision for the same trigger is the floor: a greeting, a
//! question or a fact told that the model left unanswered (it answered
//! `stop`, or only thought) gets the scripted answer, and a fact the listener heard that
//! the model did not save is saved as the scripted brain would have. A
//! model only adds to what the persona does without one.

use crate::actions::{Action, Decision};
use crate::listen::Intent;
use crate::triggers::{TriggerKind, UserInput};

use super::BrainInput;

/// Whether this trigger calls for an answer: the greeting at the start, or
/// a chat line that greets, asks, or tells something of the player (told
/// a fact, the persona says it heard it).
pub(super) fn must_answer(input: &BrainInput<'_>) -> bool {
    match input.trigger.kind {
        TriggerKind::BeforeMatch => true,
        TriggerKind::OnUserInput => {
            matches!(input.trigger.input, Some(UserInput::Chat { .. }))
                && input
                    .trigger
                    .heard
                    .as_ref()
                    .is_some_and(|h| h.to_answer().asks() || h.shows(Intent::Greeting) || !h.facts.is_empty())
        }
        _ => false,
    }
}

/// The facts the listener heard in this trigger's line.
pub(super) fn heard_facts<'a>(input: &'a BrainInput<'_>) -> &'a [String] {
    input.trigger.heard.as_ref().map_or(&[], |h| h.facts.as_slice())
}

/// Adds to the model's `decision` what the `scripted` one holds and it
/// lacks; returns what was added, for the thinking.
pub(super) fn hold(decision: &mut Decision, scripted: &Decision, input: &BrainInput<'_>) -> Vec<&'static str> {
    let mut added = Vec::new();
    let speaks = |d: &Decision| d.actions.iter().any(|a| matches!(a, Action::SendMessage { .. }));
    if must_answer(input) && !speaks(decision) {
        let words: Vec<Action> = scripted
            .actions
            .iter()
            .filter(|a| matches!(a, Action::SendMessage { .. }))
            .cloned()
            .collect();
        if !words.is_empty() {
            before_stop(decision, words);
            added.push("the scripted answer (the model left it unanswered)");
        }
    }
    let facts = heard_facts(input);
    let missing: Vec<Action> = scripted
        .actions
        .iter()
        .filter(|a| match a {
            Action::SaveMemory { content, .. } => facts.contains(content) && !saved_alike(decision, content),
            _ => false,
        })
        .cloned()
        .collect();
    if !missing.is_empty() {
        before_stop(decision, missing);
        added.push("the facts heard (the model did not save them)");
    }
    added
}

/// Puts `actions` before the decision's `stop` (or at its end).
fn before_stop(decision: &mut Decision, actions: Vec<Action>) {
    let at = decision
        .actions
        .iter()
        .position(|a| *a == Action::Stop)
        .unwrap_or(decision.actions.len());
    decision.actions.splice(at..at, actions);
}

/// Whether the model saved this fact already, in its own words.
fn saved_alike(decision: &Decision, fact: &str) -> bool {
    decision.actions.iter().any(|a| match a {
        Action::SaveMemory { content, .. } => crate::listen::same_fact(fact, content),
        _ => false,
    })
}
