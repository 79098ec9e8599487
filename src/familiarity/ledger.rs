//! Familiarity over SQL: the history of a player with a persona brought up
//! to date with the games they ended together (after every game and before
//! it is read), and every history made anew from the record (`kibitz
//! familiarity rebuild`). Both run the same replay.

use super::EndedGame;
use super::{Entry, Together, replay};
use crate::ids::{PersonaId, PlayerId};
use crate::listen::{Intent, Listener};
use crate::store::{Db, StoreResult};

/// What a rebuild found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Rebuilt {
    pub pairs: usize,
    pub games: usize,
    /// Histories that differed from the record and were rewritten.
    pub rewritten: usize,
}

/// A game is hard-fought from this many plies (30 moves), or drawn.
const HARD_FOUGHT_PLIES: i64 = 60;

/// Brings the history of `player` (named `name`) with `persona` up to date
/// and returns it. A game already in it keeps what was read of it; a new
/// one is read from its messages.
pub async fn update(db: &Db, player: PlayerId, name: &str, persona: &PersonaId) -> StoreResult<Vec<Entry>> {
    let stored = db.familiarity_history(player, persona).await?;
    let mut games = Vec::new();
    for ended in db.games_together(player, persona).await? {
        let known = stored
            .iter()
            .find(|e| e.game.match_id == ended.match_id && e.game.played_at == ended.ended_at);
        games.push(match known {
            Some(e) => e.game.clone(),
            None => read(db, &ended, name).await?,
        });
    }
    let history = replay(&games);
    if history != stored {
        db.rewrite_familiarity(player, persona, &history).await?;
    }
    Ok(history)
}

/// Makes every history anew from the record (each game read again from its
/// messages); rewrites only those that differ. `progress` hears each pair.
pub async fn rebuild(db: &Db, progress: &mut dyn FnMut(usize, usize)) -> StoreResult<Rebuilt> {
    let pairs = db.pairs_with_games().await?;
    let mut done = Rebuilt {
        pairs: pairs.len(),
        ..Rebuilt::default()
    };
    for (i, (player, persona)) in pairs.iter().enumerate() {
        let name = db.player(*player).await?.map(|p| p.name).unwrap_or_default();
        let mut games = Vec::new();
        for ended in db.games_together(*player, persona).await? {
            games.push(read(db, &ended, &name).await?);
        }
        done.games += games.len();
        let history = replay(&games);
        if db.familiarity_history(*player, persona).await? != history {
            db.rewrite_familiarity(*player, persona, &history).await?;
            done.rewritten += 1;
        }
        progress(i + 1, pairs.len());
    }
    Ok(done)
}

/// What a game together was: its end from the match, the rest from what
/// the player typed, heard by the listener's rules (no model: the same
/// words always count the same).
async fn read(db: &Db, ended: &EndedGame, name: &str) -> StoreResult<Together> {
    let lines = db.player_lines(ended.match_id).await?;
    Ok(together(ended, &lines, name))
}

pub fn together(ended: &EndedGame, lines: &[String], name: &str) -> Together {
    let listener = Listener::default();
    let (mut shared, mut courteous, mut rude) = (0, 0, 0);
    for line in lines {
        let heard = listener.hear(line, None, name);
        shared += u32::from(!heard.facts.is_empty());
        match heard.intent {
            Intent::Compliment | Intent::Thanks | Intent::Apology | Intent::Greeting | Intent::Farewell => {
                courteous += 1
            }
            Intent::TrashTalk => rude += 1,
            _ => {}
        }
    }
    Together {
        match_id: ended.match_id,
        played_at: ended.ended_at,
        finished: ended.result != "*",
        hard_fought: ended.result == "1/2-1/2" || ended.plies >= HARD_FOUGHT_PLIES,
        shared,
        courteous,
        rude,
    }
}
