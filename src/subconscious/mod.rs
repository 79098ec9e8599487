//! The subconscious (seed 002): before the main agent acts, it searches the
//! vector memory for what is relevant now (by meaning, and by the board:
//! the same position or opening), drops what it gave recently and what was
//! only just created, ranks by similarity, importance, strength and recency,
//! and hands over the best few. With a language model, the model searches
//! and chooses instead (`llm.rs`), within the same guard rails.

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};

mod llm;
pub mod situation;

use crate::config::{RecallConfig, RoleConfig};
use crate::ids::MemoryId;
use crate::llm::ChatModel;
use crate::memory::embed::QueryLimits;
use crate::memory::strength;
use crate::memory::vector::{BoardFilter, SearchFilter};
use crate::memory::{MemoryError, MemoryService, Recalled, Search, recall_entries};
use crate::store::RecallEntry;
use crate::triggers::{GameContext, Trigger, TriggerKind, UserInput};

/// Per-match memory of what was handed over, and when.
#[derive(Debug, Default)]
pub struct RecallState {
    given: HashMap<MemoryId, DateTime<Utc>>,
}

#[derive(Clone)]
pub struct Subconscious {
    memory: MemoryService,
    config: RecallConfig,
}

impl Subconscious {
    pub fn new(memory: MemoryService, config: RecallConfig) -> Subconscious {
        Subconscious { memory, config }
    }

    /// With a language model, its choice (falling back to the heuristic if
    /// it fails or never provides); without one, the heuristic.
    pub async fn recall_with(
        &self,
        trigger: &Trigger,
        ctx: &GameContext,
        state: &mut RecallState,
        llm: Option<(&dyn ChatModel, RoleConfig)>,
        persona: &str,
    ) -> Result<Recall, MemoryError> {
        let Some((model, sampling)) = llm else {
            return self.recall(trigger, ctx, state).await;
        };
        let now = Utc::now();
        let session = llm::Session {
            model,
            memory: &self.memory,
            base: self.base_filter(ctx, state, now),
            sampling,
            limit: self.config.limit,
        };
        let query = query_for(trigger, ctx);
        let situation = format!(
            "{} at move {}. The situation: {query}",
            trigger.kind.as_str(),
            ctx.move_count
        );
        match llm::choose(&session, persona, &situation).await {
            Ok(Some(chosen)) => Ok(hand_over(chosen, state, &format!("subconscious: {query}"), now)),
            Ok(None) => self.recall(trigger, ctx, state).await,
            Err(e) => {
                tracing::warn!("LLM subconscious failed ({e}); the heuristic recalls");
                self.recall(trigger, ctx, state).await
            }
        }
    }

    /// The guard rails every search keeps: this persona, this player (and
    /// lore), minus what was given recently and what this match just made.
    fn base_filter(&self, ctx: &GameContext, state: &mut RecallState, now: DateTime<Utc>) -> SearchFilter {
        let given_ttl = Duration::seconds(self.config.given_ttl_secs as i64);
        state.given.retain(|_, at| now - *at < given_ttl);
        let created_since = now - Duration::seconds(self.config.created_ttl_secs as i64);
        SearchFilter {
            persona_id: Some(ctx.persona_id.clone()),
            player_id: Some(ctx.player_id),
            include_lore: true,
            exclude_ids: state.given.keys().copied().collect(),
            exclude_created_in_match_since: Some((ctx.match_id, created_since.timestamp())),
            ..SearchFilter::default()
        }
    }

    pub async fn recall(
        &self,
        trigger: &Trigger,
        ctx: &GameContext,
        state: &mut RecallState,
    ) -> Result<Recall, MemoryError> {
        let now = Utc::now();
        let filter = self.base_filter(ctx, state, now);
        let board = ctx.live_board();
        let mut searches = vec![Search {
            filter: filter.clone(),
            limit: self.config.candidates.max(self.config.limit),
            min_score: self.config.min_score,
        }];
        // Memories made at this very position or in this opening come back
        // whatever the words: the board itself is the reminder.
        let at_board = BoardFilter {
            position_key: board.position_key.clone(),
            eco: board.eco.clone(),
        };
        if !at_board.is_empty() {
            searches.push(Search {
                filter: SearchFilter {
                    board: Some(at_board),
                    include_lore: false,
                    ..filter
                },
                limit: self.config.limit,
                min_score: f32::MIN,
            });
        }
        let wanted = query_for(trigger, ctx);
        // Only a chat line's words need the model: every other query is pinned.
        let query = match &trigger.input {
            Some(UserInput::Chat { .. }) => {
                let limits = QueryLimits {
                    max_backlog: self.config.chat_query_max_backlog,
                    max_share: self.config.chat_query_model_share,
                };
                self.memory.embedder().affordable(&wanted, situation::CHATTING, limits)
            }
            _ => wanted.as_str(),
        };
        let mut found = self.memory.search_each(query, searches).await?;
        strength::rank(&mut found, &board, now, &self.config, self.memory.config());
        found.truncate(self.config.limit);
        Ok(hand_over(found, state, query, now))
    }
}

/// What the subconscious hands to the main agent, and the recall log's
/// entries for it (written with the trigger's log, in one commit).
#[derive(Debug, Default)]
pub struct Recall {
    pub memories: Vec<Recalled>,
    pub log: Vec<RecallEntry>,
}

/// Marks memories as given and says why each one came.
fn hand_over(found: Vec<Recalled>, state: &mut RecallState, query: &str, now: DateTime<Utc>) -> Recall {
    for r in &found {
        state.given.insert(r.memory.id, now);
    }
    Recall {
        log: recall_entries(&found, query),
        memories: found,
    }
}

/// What to look for, in words: the situation as the persona would think of
/// it. The words name the kind of moment (a capture, a check, a quiet move,
/// the stage, the opening family), never the player's name or the exact
/// move: the filter already keeps to this player, the board search already
/// finds this very position, and every sentence but a chat line comes from
/// `situation::vocabulary`, embedded once at start-up.
pub fn query_for(trigger: &Trigger, ctx: &GameContext) -> String {
    match (trigger.kind, &trigger.input) {
        (TriggerKind::BeforeMatch, _) => situation::RETURNING.into(),
        (TriggerKind::OnUserInput, Some(UserInput::Chat { text })) => format!("The player says: {text}"),
        (TriggerKind::OnUserInput, Some(UserInput::DrawOffer { .. })) => situation::DRAW_OFFERED.into(),
        (TriggerKind::OnUserMove, _) => match ctx.last_move() {
            Some(m) => situation::user_move(m, ctx),
            None => situation::USER_MOVED.into(),
        },
        (TriggerKind::BeforeAgentMove, _) => situation::agent_move(ctx.planned_move.as_ref(), ctx),
        (TriggerKind::IdleWait, _) => situation::IDLE.into(),
        (TriggerKind::AfterMatch, _) => situation::MATCH_OVER.into(),
        (TriggerKind::OnUserInput, None) => situation::SOMETHING.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(moves: &[&str]) -> GameContext {
        crate::triggers::test_context(moves, &[])
    }

    #[test]
    fn queries_speak_of_what_just_happened() {
        let chat = Trigger::input(UserInput::Chat {
            text: "I love the Sicilian".into(),
        });
        assert_eq!(query_for(&chat, &ctx(&[])), "The player says: I love the Sicilian");
        let capture = query_for(&Trigger::new(TriggerKind::OnUserMove), &ctx(&["e4", "d5", "exd5"]));
        assert_eq!(
            capture,
            "The player captured a pawn in the opening of the Scandinavian Defense."
        );
        let quiet = query_for(&Trigger::new(TriggerKind::OnUserMove), &ctx(&["e4", "c5", "Nf3"]));
        assert_eq!(
            quiet,
            "The player moved a knight in the opening of the Sicilian Defense."
        );
        let first = query_for(&Trigger::new(TriggerKind::BeforeAgentMove), &ctx(&[]));
        assert_eq!(first, "My move against the player in the opening.");
        let returning = query_for(&Trigger::new(TriggerKind::BeforeMatch), &ctx(&[]));
        assert!(returning.contains("previous matches"), "{returning}");
    }

    #[test]
    fn queries_recur_across_players_and_exact_moves() {
        // Two different knight moves by two different players, same stage and
        // opening: one text, so one embedding.
        let mut ann = ctx(&["e4", "c5", "Nf3"]);
        let mut bob = ctx(&["e4", "c5", "Nc3"]);
        ann.player_name = "Ann".into();
        bob.player_name = "Bob".into();
        let trigger = Trigger::new(TriggerKind::OnUserMove);
        assert_eq!(query_for(&trigger, &ann), query_for(&trigger, &bob));
        assert!(!query_for(&trigger, &ann).contains("Ann"));
    }

    #[test]
    fn every_move_query_is_in_the_vocabulary_embedded_at_start() {
        use crate::chess::Game;
        use rand::{Rng, SeedableRng};
        let vocabulary: std::collections::HashSet<String> = situation::vocabulary().into_iter().collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut checked = 0;
        for _ in 0..40 {
            let mut game = Game::new(None).unwrap();
            let mut sans = Vec::new();
            while game.end().is_none() && sans.len() < 120 {
                let legal = game.legal_moves();
                let m = game.parse(&legal[rng.gen_range(0..legal.len())].0).unwrap();
                let played = game.play(m);
                sans.push(played.san);
                let refs: Vec<&str> = sans.iter().map(String::as_str).collect();
                let mut ctx = ctx(&refs);
                ctx.planned_move = ctx.last_move().cloned();
                for kind in [TriggerKind::OnUserMove, TriggerKind::BeforeAgentMove] {
                    let query = query_for(&Trigger::new(kind), &ctx);
                    assert!(vocabulary.contains(&query), "not in the vocabulary: {query}");
                    checked += 1;
                }
            }
        }
        for kind in [TriggerKind::BeforeMatch, TriggerKind::IdleWait, TriggerKind::AfterMatch] {
            assert!(vocabulary.contains(&query_for(&Trigger::new(kind), &ctx(&[]))));
        }
        assert!(checked > 1000, "{checked}");
        assert!(vocabulary.len() < 6000, "{}", vocabulary.len());
    }
}
