//! The game at the table: the board, the player's colour, the clock of the
//! side to move, a pending draw offer and the game's notes (hints and
//! takebacks). Only this file changes them; the actor's other parts ask.

use chrono::{DateTime, Utc};
use shakmaty::Color;

use crate::chess::{Game, GameEnd, MoveError, PlayedMove};
use crate::events::Side;
use crate::store::{MatchNote, NoteKind};

pub(super) struct Table {
    game: Game,
    user: Color,
    draw_offer: Option<Side>,
    /// When the side to move got the move (the match's start or load, or
    /// the last move), and how long the player thought over their last
    /// move: a long think or an instant move is part of the moment, and
    /// every move's time is stored with it.
    to_move_since: DateTime<Utc>,
    last_think: Option<chrono::Duration>,
    /// The game's notes for its PGN (the hints asked for, the takebacks).
    notes: Vec<MatchNote>,
}

impl Table {
    pub(super) fn new(game: Game, user: Color, draw_offer: Option<Side>, notes: Vec<MatchNote>) -> Table {
        Table {
            game,
            user,
            draw_offer,
            to_move_since: Utc::now(),
            last_think: None,
            notes,
        }
    }

    pub(super) fn game(&self) -> &Game {
        &self.game
    }

    /// The player's colour.
    pub(super) fn user(&self) -> Color {
        self.user
    }

    /// Who moved as `color`.
    pub(super) fn side_of(&self, color: Color) -> Side {
        if color == self.user { Side::User } else { Side::Persona }
    }

    pub(super) fn is_users_turn(&self) -> bool {
        self.game.turn() == self.user
    }

    pub(super) fn play(&mut self, m: shakmaty::Move) -> PlayedMove {
        self.game.play(m)
    }

    /// The game is over: no offer stays pending.
    pub(super) fn finish(&mut self, end: GameEnd) {
        self.game.finish(end);
        self.draw_offer = None;
    }

    /// Back to the game after its first `keep` moves; the player's clock
    /// starts again.
    pub(super) fn take_back_to(&mut self, keep: usize) -> Result<(), MoveError> {
        self.game = self.game.truncated(keep)?;
        self.to_move_since = Utc::now();
        self.last_think = None;
        Ok(())
    }

    /// The game as SQL holds it, after a write of it failed.
    pub(super) fn restore(&mut self, game: Game, draw_offer: Option<Side>, notes: Vec<MatchNote>) {
        self.game = game;
        self.draw_offer = draw_offer;
        self.notes = notes;
    }

    pub(super) fn draw_offer(&self) -> Option<Side> {
        self.draw_offer
    }

    pub(super) fn set_draw_offer(&mut self, by: Option<Side>) {
        self.draw_offer = by;
    }

    /// How long the side to move took: the clock restarts for the other side.
    pub(super) fn clock_move(&mut self) -> chrono::Duration {
        let now = Utc::now();
        let took = now - self.to_move_since;
        self.to_move_since = now;
        took
    }

    /// The player's think over their last move.
    pub(super) fn player_thought(&mut self, took: chrono::Duration) {
        self.last_think = Some(took);
    }

    pub(super) fn last_think(&self) -> Option<chrono::Duration> {
        self.last_think
    }

    pub(super) fn notes(&self) -> &[MatchNote] {
        &self.notes
    }

    pub(super) fn count(&self, kind: NoteKind) -> usize {
        self.notes.iter().filter(|n| n.is(kind)).count()
    }

    pub(super) fn note(&mut self, ply: usize, kind: NoteKind, text: &str) {
        self.notes.push(MatchNote {
            ply,
            kind: kind.as_str().into(),
            text: text.to_string(),
        });
    }
}
