//! A takeback the player asks for: granted or refused by the persona's
//! policy (`[takeback]` in its file: how many a game, whether only for a
//! mistake or a blunder), said in its voice. Granted, the player's last
//! move and the persona's reply are gone for both sides (the board, the
//! stored moves, the odds), counted, and a comment in the PGN.

use super::{Events, MatchActor};
use crate::chess::odds::MoveClass;
use crate::events::Takeback;
use crate::runtime::error::RuntimeError;
use crate::store::{DomainWrite, NoteKind};
use crate::triggers::{Trigger, TriggerKind, UserInput};

impl MatchActor {
    pub(super) async fn takeback(&mut self, events: &mut Events) -> Result<(), RuntimeError> {
        if self.table.game().turn() != self.table.user() {
            return Err(RuntimeError::NotYourTurn);
        }
        let moves = self.table.game().moves();
        let keep = moves
            .iter()
            .rposition(|m| m.mover == self.table.user())
            .ok_or(RuntimeError::NothingToTakeBack)?;
        // "12. Qh5 Nf6": a reply by Black keeps White's number.
        let taken = (keep..moves.len())
            .filter_map(|i| match i > keep && moves[i].mover == shakmaty::Color::Black {
                true => Some(moves[i].san.clone()),
                false => self.table.game().move_label(i),
            })
            .collect::<Vec<_>>()
            .join(" ");
        let refusal = self.refusal(keep);
        let granted = refusal.is_none();
        let data = Takeback {
            granted,
            moves: taken.clone(),
            why: refusal.clone(),
            count: self.takebacks() + usize::from(granted),
        };
        if granted {
            let write = DomainWrite::Takeback {
                keep,
                text: taken.clone(),
            };
            events.push(self.emitter.emit(data, write).await?);
            self.take_back_to(keep, &taken).await?;
        } else {
            events.push(self.emitter.emit(data, DomainWrite::Nothing).await?);
        }
        let mut trigger = Trigger::new(TriggerKind::OnUserInput);
        trigger.input = Some(UserInput::Takeback {
            granted,
            moves: taken,
            why: refusal.unwrap_or_default(),
        });
        self.idle.reset();
        self.arm_idle().await;
        self.fire(trigger, None, events).await
    }

    fn takebacks(&self) -> usize {
        self.table.count(NoteKind::Takeback)
    }

    /// Why the persona's policy refuses to take back the player's move at
    /// index `at`, if it does.
    fn refusal(&self, at: usize) -> Option<String> {
        let (policy, name) = (&self.persona.takeback, &self.persona.name);
        if policy.per_game == 0 {
            return Some(format!("{name} never grants a takeback"));
        }
        if self.takebacks() >= policy.per_game as usize {
            let n = policy.per_game;
            return Some(format!(
                "{name} grants {n} takeback{} a game, and you have had them",
                if n == 1 { "" } else { "s" }
            ));
        }
        let class = self.odds.after(at + 1).map(|o| o.class);
        let slip = matches!(class, Some(MoveClass::Mistake | MoveClass::Blunder));
        (policy.only_blunders && !slip)
            .then(|| format!("{name} grants a takeback only for a move the engine calls a mistake or a blunder"))
    }

    /// Back to the game after its first `keep` moves, for both sides.
    async fn take_back_to(&mut self, keep: usize, taken: &str) -> Result<(), RuntimeError> {
        self.table.take_back_to(keep)?;
        self.odds.keep(keep);
        self.table.note(keep, NoteKind::Takeback, taken);
        if self.table.draw_offer().is_some() {
            let mut ignored = Vec::new();
            self.set_draw_offer(None, &mut ignored).await?;
        }
        Ok(())
    }
}
