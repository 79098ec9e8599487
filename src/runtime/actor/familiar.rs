//! A stage of familiarity reached in a match: when the end of a game moves
//! the player to a new stage with this persona, a `familiarity` event says
//! so (the persona's words already reflect it from the next greeting on).

use super::{Events, MatchActor};
use crate::events::FamiliarityReached;
use crate::familiarity::Stage;
use crate::runtime::error::RuntimeError;
use crate::store::DomainWrite;

impl MatchActor {
    /// After the history was read back with this game in it: a
    /// `familiarity` event if the stage changed from `before`.
    pub(super) async fn tell_familiarity(&mut self, before: Stage, events: &mut Events) -> Result<(), RuntimeError> {
        let now = &self.history.familiarity;
        if now.stage == before {
            return Ok(());
        }
        let games = match now.games {
            1 => "1 game together".to_string(),
            n => format!("{n} games together"),
        };
        let text = match now.stage > before {
            true => format!(
                "{} now counts you as {}: {games}.",
                self.persona.name,
                now.stage.described()
            ),
            false => format!("{} counts you as {} again.", self.persona.name, now.stage.described()),
        };
        let data = FamiliarityReached {
            stage: now.stage,
            previous: before,
            games: now.games,
            points: now.points,
            text,
        };
        events.push(self.emitter.emit(data, DomainWrite::Nothing).await?);
        Ok(())
    }
}
