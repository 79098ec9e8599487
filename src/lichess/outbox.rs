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
        ("abandoned", None) => Carry::Resign,
        _ => Carry::Nothing,
    }
}

impl GameDriver {
    /// Carries every event of the match not carried yet.
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
        for event in &events {
            match carry(&event.body) {
                Carry::Say(text) => {
                    self.carried(event.seq).await?;
                    self.say(text).await?;
                }
                Carry::Play { ply, uci } => {
                    self.play(ply, uci).await?;
                    self.carried(event.seq).await?;
                }
                Carry::Draw(yes) if !self.lichess_over => {
                    self.bot.client.draw(&self.game_id, yes).await?;
                    self.carried(event.seq).await?;
                }
                Carry::Takeback(yes) if !self.lichess_over => {
                    self.bot.client.takeback(&self.game_id, yes).await?;
                    self.carried(event.seq).await?;
                }
                Carry::Resign if !self.lichess_over => {
                    self.bot.client.resign(&self.game_id).await?;
                    self.carried(event.seq).await?;
                }
                _ => {}
            }
        }
        self.carried(last).await
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

    /// The persona's move at `ply`, posted unless Lichess has it.
    async fn play(&mut self, ply: usize, uci: &str) -> Result<(), DriveError> {
        let known = self.on_lichess.len();
        if known >= ply || self.lichess_over {
            return Ok(());
        }
        if known + 1 != ply {
            tracing::warn!(game = %self.game_id, ply, known, "the persona's move is ahead of Lichess's game");
            return Ok(());
        }
        self.bot.client.play(&self.game_id, uci, false).await?;
        self.on_lichess.push(uci.to_string());
        Ok(())
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
