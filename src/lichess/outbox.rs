//! What the match did, carried to the Lichess game: the persona's moves,
//! its words (player room only, cut to the chat's lines), its answers to
//! draw and takeback offers, a resignation or a claimed draw, and the
//! reflection's summary after the game. The match's events are read from
//! SQL after the last one carried (`lichess_games.posted_seq`): a move is
//! posted only if Lichess lacks it, and a chat line is counted as carried
//! before it is sent, so a reconnect or a crash repeats neither.

use super::chat;
use super::game::{DriveError, GameDriver};
use super::wire::Room;
use crate::events::{DrawOffer, EventBody, GameOver, Side, readable};

/// What an event asks of the game on Lichess.
#[derive(Debug, PartialEq)]
enum Carry<'a> {
    Say(&'a str),
    Play { ply: usize, uci: &'a str },
    Draw(bool),
    Takeback(bool),
    Resign,
    Nothing,
}

fn carry(body: &EventBody) -> Carry<'_> {
    match body {
        EventBody::Message(m) if m.sender == Side::Persona => Carry::Say(&m.content),
        EventBody::Reflection(r) => Carry::Say(&r.summary),
        EventBody::Move(m) if m.side == Side::Persona => Carry::Play {
            ply: m.ply,
            uci: &m.uci,
        },
        EventBody::DrawOffer(offer) => draw_answer(offer).map_or(Carry::Nothing, Carry::Draw),
        EventBody::Takeback(t) => Carry::Takeback(t.granted),
        EventBody::GameOver(over) => ending(over),
        _ => Carry::Nothing,
    }
}

/// The persona offering a draw, or answering the opponent's offer.
fn draw_answer(offer: &DrawOffer) -> Option<bool> {
    match (offer.by, offer.accepted, offer.pending) {
        (Some(Side::Persona), _, Some(true)) => Some(true),
        (Some(Side::User), Some(accepted), _) => Some(accepted),
        _ => None,
    }
}

/// An ending the match reached on its own that Lichess must be told of.
fn ending(over: &GameOver) -> Carry<'static> {
    match (over.termination.as_str(), over.winner) {
        ("resignation", Some(Side::User)) => Carry::Resign,
        // A repetition or fifty quiet moves: claimed by offering the draw.
        ("threefold_repetition" | "fifty_moves" | "insufficient_material", None) => Carry::Draw(true),
        // The persona's pending offer taken up by the opponent's: accepted
        // in the match, and so on Lichess (where the offer may have lapsed).
        ("draw_agreed", None) => Carry::Draw(true),
        _ => Carry::Nothing,
    }
}

impl GameDriver {
    /// Carries every event of the match not carried yet: answers to offers
    /// first (a move of ours would decline them on Lichess), then moves
    /// (the clock runs), then words.
    pub(super) async fn post_outbox(&mut self) -> Result<(), DriveError> {
        let Some(seated) = self.seated.as_ref() else {
            return Ok(());
        };
        let (match_id, after) = (seated.row.match_id, seated.row.posted_seq);
        let db = self.bot.runtime.shared().db;
        let events = readable(db.events_since(match_id, after).await?);
        let Some(last) = events.last().map(|e| e.seq) else {
            return Ok(());
        };
        let carried: Vec<Carry> = events.iter().map(|e| carry(&e.body)).collect();
        let answers = carried
            .iter()
            .filter(|c| matches!(c, Carry::Draw(_) | Carry::Takeback(_) | Carry::Resign));
        for answer in answers {
            if self.lichess_over {
                break;
            }
            match *answer {
                Carry::Draw(yes) => self.bot.client.draw(&self.game_id, yes).await?,
                Carry::Takeback(yes) => self.bot.client.takeback(&self.game_id, yes).await?,
                _ => self.bot.client.resign(&self.game_id).await?,
            }
        }
        for c in &carried {
            if let Carry::Play { ply, uci } = *c {
                self.play(ply, uci).await?;
            }
        }
        // Marked carried before they are said: a crash loses a line rather
        // than saying it twice.
        self.carried(last).await?;
        for c in &carried {
            if let Carry::Say(text) = *c {
                self.say(text).await?;
            }
        }
        Ok(())
    }

    /// Events up to `seq` are carried (in SQL first).
    async fn carried(&mut self, seq: i64) -> Result<(), DriveError> {
        let Some(seated) = self.seated.as_mut() else {
            return Ok(());
        };
        if seq > seated.row.posted_seq {
            seated.row.posted_seq = seq;
            self.bot.runtime.shared().db.lichess_posted(&self.game_id, seq).await?;
        }
        Ok(())
    }

    /// The persona's move at `ply`, posted unless Lichess has it, or the
    /// match took it back since.
    async fn play(&mut self, ply: usize, uci: &str) -> Result<(), DriveError> {
        let known = self.on_lichess.len();
        if known >= ply || self.lichess_over || !self.still_played(ply, uci).await? {
            return Ok(());
        }
        if known + 1 != ply {
            // Lichess has not told of the moves before it yet: it is posted
            // once it has (an error, so these events are not marked carried).
            return Err(DriveError::Moves(format!(
                "the persona's move {uci} at ply {ply} is ahead of Lichess's {known}"
            )));
        }
        self.bot.client.play(&self.game_id, uci, false).await?;
        self.on_lichess.push(uci.to_string());
        Ok(())
    }

    /// Whether the match still has `uci` at `ply` (a takeback removes it).
    async fn still_played(&self, ply: usize, uci: &str) -> Result<bool, DriveError> {
        let Some(id) = self.match_id() else { return Ok(false) };
        let state = self.bot.runtime.state(id).await?;
        Ok(state.moves.get(ply - 1).is_some_and(|m| m.uci == uci))
    }

    /// The persona's words in the player room, in lines the chat takes; a
    /// line Lichess refuses is logged, the rest still said.
    async fn say(&self, text: &str) -> Result<(), DriveError> {
        for line in chat::split(text, self.bot.settings.chat_line_chars) {
            match self.bot.client.chat(&self.game_id, Room::Player, &line).await {
                Err(e @ super::client::LichessError::Status { .. }) => {
                    tracing::info!(game = %self.game_id, "a chat line was refused: {e}");
                }
                other => other?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over(termination: &str, winner: Option<Side>) -> EventBody {
        EventBody::GameOver(GameOver {
            result: String::new(),
            termination: termination.into(),
            winner,
        })
    }

    fn offer(by: Option<Side>, accepted: Option<bool>, pending: Option<bool>) -> EventBody {
        EventBody::DrawOffer(DrawOffer { by, accepted, pending })
    }

    #[test]
    fn what_lichess_is_told_of_how_the_match_ended() {
        // The persona resigned: Lichess must hear it; the opponent's own
        // resignation, a mate or a clock came from Lichess and goes back as nothing.
        assert_eq!(carry(&over("resignation", Some(Side::User))), Carry::Resign);
        assert_eq!(carry(&over("resignation", Some(Side::Persona))), Carry::Nothing);
        assert_eq!(carry(&over("checkmate", Some(Side::Persona))), Carry::Nothing);
        assert_eq!(carry(&over("timeout", Some(Side::User))), Carry::Nothing);
        // A draw the match reached by rule or agreement is claimed or agreed there.
        for rule in [
            "threefold_repetition",
            "fifty_moves",
            "insufficient_material",
            "draw_agreed",
        ] {
            assert_eq!(carry(&over(rule, None)), Carry::Draw(true), "{rule}");
        }
        assert_eq!(carry(&over("abandoned", None)), Carry::Nothing);
    }

    #[test]
    fn the_persona_s_answers_to_offers_and_its_own_offer() {
        assert_eq!(carry(&offer(Some(Side::User), Some(false), None)), Carry::Draw(false));
        assert_eq!(carry(&offer(Some(Side::User), Some(true), None)), Carry::Draw(true));
        assert_eq!(carry(&offer(Some(Side::Persona), None, Some(true))), Carry::Draw(true));
        assert_eq!(carry(&offer(None, None, Some(false))), Carry::Nothing, "withdrawn");
    }
}
