//! The ratings in SQL: a player's history brought up to date with their
//! finished games (after every game, and before it is read), and every
//! history made anew from the games (`kibitz ratings rebuild`). Both run
//! the same replay, so a rebuild finds what the live updates wrote.

use super::FinishedGame;
use super::{Entry, RatedGame, replay, score};
use crate::chess::Game;
use crate::ids::PlayerId;
use crate::store::{Db, StoreResult};

/// What a rebuild found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Rebuilt {
    pub players: usize,
    pub rated_games: usize,
    /// Players whose stored history differed from the replay and was
    /// rewritten.
    pub rewritten: usize,
}

/// The games of a player that count, in the order played. `persona_elo`
/// tells a persona's card Elo, for games stored before the match kept the
/// strength it was played at; a game whose persona is unknown then does
/// not count.
pub async fn rated_games(
    db: &Db,
    player: PlayerId,
    persona_elo: &(dyn Fn(&str) -> Option<u32> + Sync),
) -> StoreResult<Vec<RatedGame>> {
    let games = db.games_for_rating(player).await?;
    Ok(games.iter().filter_map(|g| counted(g, persona_elo)).collect())
}

fn counted(g: &FinishedGame, persona_elo: &(dyn Fn(&str) -> Option<u32> + Sync)) -> Option<RatedGame> {
    // A game from a set position says little of the player's strength.
    let standard = Game::new(Some(&g.start_fen)).is_ok_and(|game| game.is_standard_start());
    if !standard {
        return None;
    }
    let elo = g.persona_elo.or_else(|| persona_elo(&g.persona_id))?;
    Some(RatedGame {
        match_id: g.match_id,
        persona_id: g.persona_id.clone(),
        persona_rating: f64::from(elo),
        score: score(&g.result, g.user_color == "white")?,
        played_at: g.ended_at,
    })
}

/// Brings the player's stored history up to date with their games and
/// returns it: the new games appended, or, if the games no longer match
/// the history's order (a game that ended earlier committed later), the
/// history from the first difference on made anew.
pub async fn update(
    db: &Db,
    player: PlayerId,
    persona_elo: &(dyn Fn(&str) -> Option<u32> + Sync),
) -> StoreResult<Vec<Entry>> {
    let games = rated_games(db, player, persona_elo).await?;
    let stored = db.rating_history(player).await?;
    let keep = stored
        .iter()
        .zip(&games)
        .take_while(|(e, g)| e.match_id == g.match_id && e.played_at == g.played_at)
        .count();
    if keep == stored.len() && keep == games.len() {
        return Ok(stored);
    }
    let after = replay(stored[..keep].last(), &games[keep..]);
    db.rewrite_rating_history(player, &stored[..keep], &after).await?;
    let mut history = stored;
    history.truncate(keep);
    history.extend(after);
    Ok(history)
}

/// Makes every player's history anew from their games; rewrites only those
/// that differ. `progress` hears each player done.
pub async fn rebuild(
    db: &Db,
    persona_elo: &(dyn Fn(&str) -> Option<u32> + Sync),
    progress: &mut dyn FnMut(usize, usize),
) -> StoreResult<Rebuilt> {
    let players = db.players_with_games().await?;
    let mut done = Rebuilt {
        players: players.len(),
        ..Rebuilt::default()
    };
    for (i, player) in players.iter().enumerate() {
        let games = rated_games(db, *player, persona_elo).await?;
        let replayed = replay(None, &games);
        done.rated_games += games.len();
        if db.rating_history(*player).await? != replayed {
            db.rewrite_rating_history(*player, &[], &replayed).await?;
            done.rewritten += 1;
        }
        progress(i + 1, players.len());
    }
    Ok(done)
}
