//! Draw offers: the player's, which the persona takes when it is not ahead
//! and the game has gone on a while; the persona's own (`turns.rs` makes
//! them), which the player accepts or declines; and playing on, which
//! answers a pending offer with no.

use shakmaty::Position;

use super::{Events, MatchActor};
use crate::chess::GameEnd;
use crate::events::{DrawOffer, Side};
use crate::runtime::error::RuntimeError;
use crate::store::DomainWrite;
use crate::triggers::{Trigger, UserInput};

/// Before this move number a draw offer is declined: play some chess first.
const DRAW_ACCEPT_FULLMOVE: u32 = 10;

impl MatchActor {
    pub(super) fn pending_persona_offer(&self) -> Result<(), RuntimeError> {
        match self.table.draw_offer() {
            Some(Side::Persona) => Ok(()),
            _ => Err(RuntimeError::NoDrawOffer),
        }
    }

    pub(super) async fn offer_draw(&mut self, events: &mut Events) -> Result<(), RuntimeError> {
        if self.table.draw_offer() == Some(Side::Persona) {
            return self.finish(GameEnd::DrawAgreed, events).await;
        }
        // The persona takes a draw when it is not ahead and the game has gone on a while.
        let long_enough = self.table.game().position().fullmoves().get() >= DRAW_ACCEPT_FULLMOVE;
        let accepted = long_enough && self.table.game().material_balance(!self.table.user()) <= 0;
        let data = DrawOffer {
            by: Some(Side::User),
            accepted: Some(accepted),
            pending: None,
        };
        events.push(self.emitter.emit(data, DomainWrite::Nothing).await?);
        let input = UserInput::DrawOffer { accepted };
        self.fire(Trigger::input(input), None, events).await?;
        if accepted {
            self.finish(GameEnd::DrawAgreed, events).await?;
        }
        Ok(())
    }

    pub(super) async fn set_draw_offer(&mut self, by: Option<Side>, events: &mut Events) -> Result<(), RuntimeError> {
        let data = DrawOffer {
            by,
            accepted: None,
            pending: Some(by.is_some()),
        };
        let write = DomainWrite::DrawOffer {
            by: by.map(|side| side.as_str().to_string()),
        };
        events.push(self.emitter.emit(data, write).await?);
        self.table.set_draw_offer(by);
        Ok(())
    }
}
