//! What the player asks of the persona besides moves and words: quiet or
//! chatty talk (remembered per persona), an engine-checked hint for their
//! move (counted, a comment in the PGN), and why the persona played its
//! last move. The persona answers the last two in its own voice, through
//! the trigger pipeline, so its words are checked like any others.

use shakmaty::san::SanPlus;

use super::{Events, MatchActor};
use crate::chess::engine::{SearchBudget, SearchRequest, Style};
use crate::chess::notation;
use crate::chess::odds::win_pct;
use crate::events::{Hint, Talk};
use crate::runtime::error::RuntimeError;
use crate::store::{DomainWrite, NoteKind};
use crate::triggers::{TalkMode, Trigger, TriggerKind, UserInput};

/// The hint's search: full strength, nodes enough for a club player's
/// position, never more than a second of the player's wait.
const HINT_NODES: u64 = 300_000;
const HINT_WITHIN_MS: u64 = 1_000;
/// Stockfish's UCI_Elo tops out near here: its strongest limited play.
const HINT_ELO: u32 = 3_190;

impl MatchActor {
    /// From now on, in this match and the next with this persona.
    pub(super) async fn set_talk(&mut self, mode: TalkMode, events: &mut Events) -> Result<(), RuntimeError> {
        let data = Talk {
            mode,
            text: mode.notice(&self.persona.name),
        };
        let write = DomainWrite::Talk {
            player_id: self.player.id.to_string(),
            persona_id: self.persona.id.clone(),
            mode: mode.as_str(),
        };
        events.push(self.emitter.emit(data, write).await?);
        self.voice.set_mode(mode);
        // A quiet persona does not nudge a player who is thinking.
        self.idle.cancel().await;
        if mode != TalkMode::Quiet {
            self.arm_idle().await;
        }
        Ok(())
    }

    /// The engine's move for the player, checked legal here; the persona
    /// gives it in its voice.
    pub(super) async fn hint(&mut self, events: &mut Events) -> Result<(), RuntimeError> {
        if self.table.game().turn() != self.table.user() {
            return Err(RuntimeError::NotYourTurn);
        }
        let per_game = self.persona.hints.per_game;
        if self.table.count(NoteKind::Hint) as u32 >= per_game {
            return Err(RuntimeError::NoHintsLeft { per_game });
        }
        let fen = self.table.game().fen();
        let engine = self
            .node
            .engines
            .analyst
            .clone()
            .unwrap_or_else(|| self.node.engines.play.clone());
        let request = SearchRequest {
            fen: fen.clone(),
            elo: HINT_ELO,
            style: Style::Positional,
            budget: SearchBudget::Nodes {
                nodes: HINT_NODES,
                within_ms: Some(HINT_WITHIN_MS),
            },
        };
        let chosen = engine
            .choose_move(&request)
            .await
            .map_err(|e| RuntimeError::NoHint(format!("the engine did not answer ({e})")))?;
        let position = self.table.game().position();
        let mv = notation::parse_move(position, &chosen.uci)
            .map_err(|e| RuntimeError::NoHint(format!("the engine's move {} is not legal here ({e})", chosen.uci)))?;
        let san = SanPlus::from_move(position.clone(), mv).to_string();
        // The score after it is the persona's side's: the player's is its other half.
        let player_pct = chosen.score_after.as_ref().map(|s| 100.0 - win_pct(s));
        let ply = self.table.game().moves().len();
        let count = self.table.count(NoteKind::Hint) as u32 + 1;
        let data = Hint {
            san: san.clone(),
            uci: chosen.uci.clone(),
            win_pct: player_pct,
            count,
        };
        let write = DomainWrite::Note {
            ply,
            kind: NoteKind::Hint.as_str(),
            text: san.clone(),
        };
        events.push(self.emitter.emit(data, write).await?);
        self.table.note(ply, NoteKind::Hint, &san);
        let input = UserInput::Hint {
            uci: chosen.uci,
            san,
            win_pct: player_pct.map(|p| (p * 10.0).round() / 10.0),
            count,
        };
        self.answer_control(input, events).await
    }

    /// Why the persona played its last move, from its search and the board tools.
    pub(super) async fn explain(&mut self, events: &mut Events) -> Result<(), RuntimeError> {
        let persona_moved = self.table.game().moves().iter().any(|m| m.mover != self.table.user());
        if !persona_moved {
            return Err(RuntimeError::NothingToExplain);
        }
        self.answer_control(UserInput::Explain, events).await
    }

    /// The persona's words to a control, as on_user_input.
    pub(super) async fn answer_control(&mut self, input: UserInput, events: &mut Events) -> Result<(), RuntimeError> {
        let mut trigger = Trigger::new(TriggerKind::OnUserInput);
        trigger.input = Some(input);
        self.idle.reset();
        self.arm_idle().await;
        self.fire(trigger, None, events).await
    }
}
