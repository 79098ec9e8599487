//! After the match: the persona's reflection, written from the facts and
//! stored before it is announced (`reflection` event); a language model, if
//! there is one, retells it in the persona's voice afterwards, off the reply.

use serde_json::json;
use shakmaty::{Color, Position};
use tracing::Instrument;

use super::MatchActor;
use super::after_game::AfterGame;
use crate::chess::{GameEnd, openings};
use crate::events::{self, EventBody, MatchEvent, Side};
use crate::memory::{CreatedBy, MemoryType, NewMemory};
use crate::reflection::moments::Moment;
use crate::reflection::{self, MatchFacts};
use crate::runtime::error::RuntimeError;
use crate::store::DomainWrite;

impl MatchActor {
    pub(super) async fn reflect(&mut self, end: GameEnd, events: &mut Vec<MatchEvent>) -> Result<(), RuntimeError> {
        let db = self.node.db.clone();
        let learned = db.learned_in(self.id).await?;
        let opening = openings::book()
            .classify(self.table.game())
            .map(|o| format!("{} {}", o.eco, o.name));
        let facts = MatchFacts {
            persona_name: &self.persona.name,
            player_name: &self.player.name,
            user_is_white: self.table.user() == Color::White,
            end,
            moves: self.table.game().moves(),
            start_fullmove: self.table.game().start_position().fullmoves().get(),
            start_white: self.table.game().start_position().turn() == Color::White,
            odds: self.odds.all(),
            opening,
            learned,
            mood: self.voice.emotion(),
            history: &self.history,
            puzzles: self.puzzle_progress().await,
        };
        let written = reflection::write(&facts);
        db.save_reflection(self.id, &written).await?;
        let lines = self.player_lines_by_ply().await?;
        let moments = reflection::moments::shared(&facts, &lines, &self.started_at.format("%-d %B %Y").to_string());
        self.keep_moments(moments).await;
        let data = events::Reflection {
            summary: written.summary.clone(),
            key_moments: written.key_moments.len(),
        };
        events.push(self.emitter.emit(data, DomainWrite::Nothing).await?);

        // Off the reply: the player's mistakes become puzzles and the key
        // moments get their better moves, then a model may retell it all.
        let after = AfterGame {
            db,
            id: self.id,
            player: (self.player.id, self.persona.id.clone(), self.table.user()),
            engine: self
                .node
                .engines
                .analyst
                .clone()
                .unwrap_or_else(|| self.node.engines.play.clone()),
            nodes: self.node.settings.eval_deep_nodes.max(self.node.settings.eval_nodes),
            game: self.table.game().clone(),
            odds: self.odds.all().to_vec(),
            retell: self
                .reflection_llm
                .clone()
                .map(|s| (s, self.persona.clone(), self.node.settings.reflection_sampling)),
        };
        self.after_game = Some(tokio::spawn(after.run(written).in_current_span()));
        Ok(())
    }

    /// What the player typed, each line with the number of moves played
    /// when they said it (from the match's numbered events).
    async fn player_lines_by_ply(&self) -> Result<Vec<(usize, String)>, RuntimeError> {
        let mut ply = 0;
        let mut lines = Vec::new();
        for e in events::readable(self.node.db.events_since(self.id, 0).await?) {
            match e.body {
                EventBody::Move(_) => ply += 1,
                EventBody::Message(m) if m.sender == Side::User => lines.push((ply, m.content)),
                _ => {}
            }
        }
        Ok(lines)
    }

    /// The game's shared moments, kept as memories of their own kind.
    async fn keep_moments(&self, moments: Vec<Moment>) {
        for m in moments {
            let new = NewMemory {
                player_id: self.player.id,
                persona_id: self.persona.id.clone(),
                memory_type: MemoryType::SharedMoment,
                content: m.content,
                related_match_id: Some(self.id),
                created_by: CreatedBy::MainAgent,
                metadata: json!({ "moment": m.kind, "source": "reflection" }),
                importance: m.importance,
                position: None,
            };
            if let Err(e) = self.node.memory.save(new).await {
                tracing::warn!(match_id = %self.id, "a shared moment was not kept: {e}");
            }
        }
    }
}
