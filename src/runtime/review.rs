//! A game looked back at from what was stored: the PGN with the analysis
//! (each move's engine score as `[%eval]`, lichess's glyphs as NAGs, the
//! better move of a reviewed mistake, and what the persona said after each
//! move), for lichess's study import, python-chess and the review page.

use super::state::{self, StateParts};
use super::{Runtime, RuntimeError, color_of, talk_mode};
use crate::chess::Game;
use crate::chess::odds::{MoveClass, MoveOdds};
use crate::chess::pgn::{MoveNote, NAG_BLUNDER, NAG_DUBIOUS, NAG_MISTAKE};
use crate::events::{self, EventBody, Side};
use crate::ids::MatchId;
use crate::store::{Db, MatchNote, MatchRow, Player};
use crate::triggers::{TalkMode, TriggerKind};

/// What a stored match's state is made from, owned.
pub(super) struct StoredParts {
    row: MatchRow,
    pub game: Game,
    odds: Vec<Option<MoveOdds>>,
    player: Player,
    persona_name: String,
    persona_elo: u32,
    notes: Vec<MatchNote>,
    talk: TalkMode,
    last_seq: i64,
}

impl StoredParts {
    pub fn parts(&self) -> StateParts<'_> {
        StateParts {
            id: self.row.id,
            player_id: self.row.player_id,
            player_name: &self.player.name,
            persona_id: &self.row.persona_id,
            persona_name: &self.persona_name,
            persona_elo: self.persona_elo,
            user_color: color_of(&self.row),
            date: self.row.created_at,
            emotion: &self.row.emotion,
            draw_offer: self.row.draw_offer.as_deref(),
            last_seq: self.last_seq,
            odds: &self.odds,
            notes: &self.notes,
            talk: self.talk,
        }
    }
}

impl Runtime {
    pub(super) async fn stored_parts(&self, id: MatchId) -> Result<StoredParts, RuntimeError> {
        let (row, game, odds) = self.stored_game(id).await?;
        let player = self.player(row.player_id).await?;
        let persona = self.svc.persona(&row.persona_id);
        let notes = self.svc.db.match_notes(id).await?;
        let talk = talk_mode(&self.svc.db, row.player_id, &row.persona_id).await?;
        Ok(StoredParts {
            persona_name: persona.as_ref().map_or(row.persona_id.to_string(), |p| p.name.clone()),
            persona_elo: persona.as_ref().map_or(0, |p| p.elo),
            last_seq: self.svc.db.last_event_seq(id).await?,
            row,
            game,
            odds,
            player,
            notes,
            talk,
        })
    }

    /// The match's PGN with its analysis, from what is stored (a live
    /// match's latest move may not be there yet).
    pub async fn analysed_pgn(&self, id: MatchId) -> Result<String, RuntimeError> {
        let stored = self.stored_parts(id).await?;
        let better = self
            .svc
            .db
            .reflection(id)
            .await?
            .map(|r| r.key_moments)
            .unwrap_or_default();
        let said = persona_lines(&self.svc.db, id, &stored.game).await?;
        let notes: Vec<MoveNote> = (0..stored.game.moves().len())
            .map(|i| {
                let odds = stored.odds.get(i).copied().flatten();
                let better = better.iter().find(|k| k.ply == i + 1).and_then(|k| k.better.as_deref());
                let lines: Vec<&str> = said
                    .iter()
                    .filter(|(ply, _)| *ply == i + 1)
                    .map(|(_, l)| l.as_str())
                    .collect();
                note(odds, better, (&stored.persona_name, &lines))
            })
            .collect();
        Ok(state::analysed_pgn_of(&stored.parts(), &stored.game, &notes))
    }
}

/// What the persona said after each move still in the game (by ply). The
/// words of `before_agent_move` come before the persona's move and are
/// about it: they go with that move. Its last words, after the game is
/// over, are about the whole game, not its last move: the reflection has
/// them.
pub(super) async fn persona_lines(db: &Db, id: MatchId, game: &Game) -> Result<Vec<(usize, String)>, RuntimeError> {
    // A move taken back since takes its words with it.
    let still_played = |ply: usize, uci: &str| {
        game.moves()
            .get(ply.wrapping_sub(1))
            .is_some_and(|played| played.uci == uci)
    };
    let mut at: Option<(usize, String)> = None;
    let (mut ahead, mut waiting) = (false, Vec::new());
    let mut lines = Vec::new();
    for e in events::readable(db.events_since(id, 0).await?) {
        match e.body {
            EventBody::Trigger(t) => ahead = t.trigger == TriggerKind::BeforeAgentMove,
            EventBody::GameOver(_) => break,
            EventBody::Move(m) => {
                if still_played(m.ply, &m.uci) {
                    lines.extend(waiting.drain(..).map(|w| (m.ply, w)));
                }
                waiting.clear();
                ahead = false;
                at = Some((m.ply, m.uci));
            }
            EventBody::Message(m) if m.sender == Side::Persona && ahead => waiting.push(m.content),
            EventBody::Message(m) if m.sender == Side::Persona => {
                if let Some((ply, _)) = at.as_ref().filter(|(ply, uci)| still_played(*ply, uci)) {
                    lines.push((*ply, m.content));
                }
            }
            _ => {}
        }
    }
    Ok(lines)
}

/// A move's note: its glyph, its score, the better move, the persona's words.
fn note(odds: Option<MoveOdds>, better: Option<&str>, (persona, said): (&str, &[&str])) -> MoveNote {
    let nag = odds.and_then(|o| match o.class {
        MoveClass::Good => None,
        MoveClass::Inaccuracy => Some(NAG_DUBIOUS),
        MoveClass::Mistake => Some(NAG_MISTAKE),
        MoveClass::Blunder => Some(NAG_BLUNDER),
    });
    let mut parts = Vec::new();
    if let Some(eval) = odds.and_then(|o| o.eval).and_then(|e| e.pgn()) {
        parts.push(format!("[%eval {eval}]"));
    }
    if let (Some(o), Some(better)) = (odds, better) {
        let judged = match o.class {
            MoveClass::Blunder => "Blunder",
            MoveClass::Mistake => "Mistake",
            _ => "Inaccuracy",
        };
        parts.push(format!("{judged}. {better} was better."));
    }
    parts.extend(
        said.iter()
            .map(|line| format!("{persona}: \"{}\"", line.replace('"', "'"))),
    );
    MoveNote {
        nag,
        comment: (!parts.is_empty()).then(|| parts.join(" ")),
    }
}
