//! The persona's words to a takeback the player asked for: its `[takeback]`
//! lines, granted or refused (else its chat words for a takeback request,
//! else plain ones).

use super::{Fill, Speaker, decision, quoted};
use crate::actions::{Action, Decision};
use crate::agent::BrainInput;
use crate::personas::Line;

/// A takeback granted or refused, in the persona's words for it; the
/// moves quoted (taken back, they are no longer on the board).
pub(super) fn words(input: &BrainInput<'_>, s: &Speaker<'_>, granted: bool, moves: &str) -> Decision {
    let policy = &input.persona.takeback;
    let asked = input.persona.chat.get("takeback_request");
    let lines: &[Line] = match granted {
        true => &policy.accept,
        false if !policy.refuse.is_empty() => &policy.refuse,
        false => asked.map_or(&[], Vec::as_slice),
    };
    let moves = quoted(moves);
    let said = match lines.is_empty() {
        false => s.pick_filled(
            lines,
            &Fill {
                mv: &moves,
                ..Fill::default()
            },
        ),
        true if granted => Action::say(format!("All right, take back {moves}."), &input.persona.tones[0]),
        true => Action::say(format!("No, {moves} stays on the board."), &input.persona.tones[0]),
    };
    let verdict = if granted {
        "I let them take back"
    } else {
        "I refused to take back"
    };
    decision(&format!("{verdict} {moves}."), vec![said])
}
