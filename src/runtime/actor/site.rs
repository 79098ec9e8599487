//! An ending decided away from the board, by the site the game is played
//! on (a Lichess clock running out, an aborted game): recorded as the site
//! says, then the persona's after_match and reflection as for any ending;
//! an aborted game, like an abandoned one, has no result and no reflection.

use super::{Events, MatchActor};
use crate::chess::GameEnd;
use crate::runtime::RuntimeError;

impl MatchActor {
    /// Ends the match with `end` unless it is over already (the board saw
    /// the mate first, or the persona resigned); true if it ended now.
    pub(super) async fn conclude(&mut self, end: GameEnd) -> Result<bool, RuntimeError> {
        if self.table.game().end().is_some() {
            return Ok(false);
        }
        let mut events = Events::new();
        match end {
            GameEnd::Abandoned => {
                self.record_end(end, &mut events).await?;
                self.stop_talking();
            }
            _ => self.finish(end, &mut events).await?,
        }
        Ok(true)
    }
}
