//! One of the player's old mistakes, offered at the greeting of a later
//! game with the same persona or, if none was due then, while the player
//! thinks (an idle wait; at most one a game, never to a player who asked
//! for quiet), and their answer judged and recorded (`puzzles`): the
//! persona says so in its voice through the trigger pipeline, like a hint.
//! An offer outlives a restart: it is read back from the match's events.

use chrono::{DateTime, Duration, Utc};

use super::{Events, MatchActor};
use crate::events::{self, EventBody, PuzzleAnswer, PuzzleOffer};
use crate::ids::MatchId;
use crate::puzzles::{self, PuzzleRow, PuzzleStatus};
use crate::reflection::PuzzleProgress;
use crate::runtime::error::RuntimeError;
use crate::store::{Db, DomainWrite};
use crate::triggers::{TalkMode, UserInput};

/// The game's puzzle: whether one was offered (one a game), and the one
/// waiting for an answer.
#[derive(Default)]
pub(super) struct PuzzleBoard {
    pub offered: bool,
    pub open: Option<PuzzleRow>,
    /// The offered one was answered: right or not.
    pub answered: Option<bool>,
}

impl PuzzleBoard {
    /// As the match's events left it before a restart: an offer not yet
    /// answered is still on the player's puzzle board.
    pub async fn restore(db: &Db, id: MatchId) -> Result<PuzzleBoard, RuntimeError> {
        let mut board = PuzzleBoard::default();
        let mut waiting = None;
        for e in events::readable(db.events_of_kinds(id, ["puzzle", "puzzle_answer"]).await?) {
            match e.body {
                EventBody::Puzzle(offer) => {
                    board.offered = true;
                    waiting = Some(offer.id);
                }
                EventBody::PuzzleAnswer(answer) if Some(answer.id) == waiting => {
                    waiting = None;
                    board.answered = Some(answer.correct);
                }
                _ => {}
            }
        }
        if let Some(id) = waiting {
            board.open = db.puzzle(id).await?.filter(|p| p.status == PuzzleStatus::Open);
        }
        Ok(board)
    }
}

/// A puzzle tried lately rests this long before it is offered again.
const REST: Duration = Duration::hours(12);

/// What the greeting is told of the puzzle it offers.
pub(super) fn offered(p: &PuzzleRow) -> UserInput {
    UserInput::PuzzleOffer {
        played_san: p.played_san.clone(),
        when: when(p.created_at, Utc::now()),
    }
}

/// When that game was, as a sentence says it: "earlier today", "on
/// Tuesday" within the week, else "on 24 November".
fn when(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    if at.date_naive() == now.date_naive() {
        "earlier today".to_string()
    } else if now - at < Duration::days(6) {
        at.format("on %A").to_string()
    } else {
        at.format("on %-d %B").to_string()
    }
}

impl MatchActor {
    /// The player's open puzzle with this persona most due: one failed
    /// before one never tried, the oldest first; none rested less than
    /// `REST`, none from this game, none for a player who asked for quiet,
    /// none if this game has offered one.
    pub(super) async fn due_puzzle(&self) -> Option<PuzzleRow> {
        if self.voice.mode() == TalkMode::Quiet || self.puzzle.offered {
            return None;
        }
        let all = self
            .node
            .db
            .puzzles_of(self.player.id, Some(&self.persona.id))
            .await
            .map_err(|e| tracing::warn!(match_id = %self.id, "no puzzle offered: {e}"))
            .ok()?;
        let now = Utc::now();
        let rested = |p: &PuzzleRow| p.last_tried_at.is_none_or(|t| now - t >= REST);
        all.into_iter()
            .filter(|p| p.status == PuzzleStatus::Open && p.match_id != self.id && rested(p))
            .min_by_key(|p| (p.failed == 0, p.created_at))
    }

    /// The puzzle on the wire (its position, what was played, where).
    pub(super) async fn offer_puzzle(&mut self, p: PuzzleRow, events: &mut Events) -> Result<(), RuntimeError> {
        let data = PuzzleOffer {
            id: p.id,
            fen: p.fen.clone(),
            played_san: p.played_san.clone(),
            from_match: p.match_id,
            ply: p.ply,
            played_at: p.created_at,
            legal_moves: crate::chess::Game::new(Some(&p.fen))
                .map(|g| g.legal_moves().into_iter().map(|(uci, _)| uci).collect())
                .unwrap_or_default(),
        };
        events.push(self.emitter.emit(data, DomainWrite::Nothing).await?);
        self.puzzle = PuzzleBoard {
            offered: true,
            open: Some(p),
            answered: None,
        };
        Ok(())
    }

    /// The player's puzzles with this persona, for the reflection (none if
    /// the store cannot say).
    pub(super) async fn puzzle_progress(&self) -> Option<PuzzleProgress> {
        let all = self.node.db.puzzles_of(self.player.id, Some(&self.persona.id)).await;
        let all = all
            .map_err(|e| tracing::warn!(match_id = %self.id, "puzzles not counted: {e}"))
            .ok()?;
        let count = |s: PuzzleStatus| all.iter().filter(|p| p.status == s).count();
        Some(PuzzleProgress {
            retired: count(PuzzleStatus::Retired),
            open: count(PuzzleStatus::Open),
            answered_here: self.puzzle.answered,
        })
    }

    /// The player's answer: judged, recorded, told on the wire and in the
    /// persona's words. One answer a game.
    pub(super) async fn answer_puzzle(&mut self, answer: &str, events: &mut Events) -> Result<(), RuntimeError> {
        let Some(p) = self.puzzle.open.clone() else {
            return Err(RuntimeError::NoPuzzle);
        };
        let (verdict, now) = puzzles::answer(&self.node.db, p.id, answer).await?;
        self.puzzle.open = None;
        self.puzzle.answered = Some(verdict.correct);
        let data = PuzzleAnswer {
            id: p.id,
            correct: verdict.correct,
            answered_san: verdict.answered_san.clone(),
            solution_san: verdict.solution_san.clone(),
            status: now.status,
        };
        events.push(self.emitter.emit(data, DomainWrite::Nothing).await?);
        let input = UserInput::PuzzleAnswer {
            correct: verdict.correct,
            answered_san: verdict.answered_san,
            solution_san: verdict.solution_san,
            when: when(p.created_at, Utc::now()),
            retired: now.status == PuzzleStatus::Retired,
        };
        self.answer_control(input, events).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_is_named_by_its_weekday_within_the_week() {
        let now: DateTime<Utc> = "2026-11-27T20:00:00Z".parse().unwrap();
        let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
        assert_eq!(when(at("2026-11-24T19:00:00Z"), now), "on Tuesday");
        assert_eq!(when(at("2026-11-27T09:00:00Z"), now), "earlier today");
        assert_eq!(when(at("2026-11-10T19:00:00Z"), now), "on 10 November");
    }
}
