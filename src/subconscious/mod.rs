//! The subconscious: before the main agent acts, it searches the
//! vector memory for what is relevant now (by meaning, and by the board:
//! the same position or opening), drops what it gave recently and what was
//! only just created, ranks by similarity, importance, strength and recency,
//! and hands over the best few. With a language model, the model searches
//! and chooses instead (`model_recall.rs`), within the same guard rails.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, Utc};

pub mod board;
mod callback;
mod fuse;
mod model_recall;
mod names;
pub mod plans;
pub mod relevance;
pub mod situation;
mod trace;
mod weigh;

pub use fuse::BY_KEY;
pub use situation::{Cue, Situation};
pub use trace::{RecallTrace, Traced};

use crate::config::{RecallConfig, RoleConfig};
use crate::embed::QueryLimits;
use crate::ids::MemoryId;
use crate::listen::Intent;
use crate::llm::ChatModel;
use crate::memory::vector::{BoardFilter, SearchFilter};
use crate::memory::{Found, MemoryError, MemoryService, Recalled, Search, WordSearch, recall_entries};
use crate::store::RecallEntry;
use crate::triggers::{GameContext, Trigger, TriggerKind};

/// Per-match memory of what was handed over, when, and why.
#[derive(Debug, Default)]
pub struct RecallState {
    given: HashMap<MemoryId, Given>,
}

/// A memory handed over: when, why, at which trigger and at how many
/// moves of the game.
#[derive(Debug)]
struct Given {
    at: DateTime<Utc>,
    why: String,
    kind: TriggerKind,
    moves: usize,
}

impl Given {
    /// The persona's answer to a move is a moment of its own: what the
    /// move brought (at the same count of moves) may come again before the
    /// persona's reply. (Not what the greeting brought before its first.)
    fn answered_by(&self, kind: TriggerKind, moves: usize) -> bool {
        kind == TriggerKind::BeforeAgentMove && self.kind == TriggerKind::OnUserMove && self.moves == moves
    }
}

impl RecallState {
    /// Whether this memory was handed over lately for this very reason: a
    /// memory comes back within the time-to-live only for a new reason (the
    /// greeting's "your openings as White", then "your Italian Game" on the
    /// board), never twice for the same one, unless this trigger answers
    /// the moment that brought it (`Given::answered_by`).
    fn given_for(&self, id: MemoryId, why: &str, kind: TriggerKind, moves: usize) -> bool {
        self.given
            .get(&id)
            .is_some_and(|g| g.why == why && !g.answered_by(kind, moves))
    }

    /// Whether this memory was handed over lately at all.
    fn given(&self, id: MemoryId) -> bool {
        self.given.contains_key(&id)
    }

    /// Whether this memory was handed over lately, for any reason, at a
    /// moment other than the one this trigger answers.
    fn given_before(&self, id: MemoryId, kind: TriggerKind, moves: usize) -> bool {
        self.given.get(&id).is_some_and(|g| !g.answered_by(kind, moves))
    }
}

#[derive(Clone)]
pub struct Subconscious {
    memory: MemoryService,
    config: RecallConfig,
    relevance: relevance::SharedRelevance,
    trace: std::sync::Arc<RecallTrace>,
}

impl Subconscious {
    pub fn new(memory: MemoryService, config: RecallConfig, relevance: relevance::SharedRelevance) -> Subconscious {
        Subconscious {
            memory,
            config,
            relevance,
            trace: Default::default(),
        }
    }

    /// Whether chat lines recall by their model yet, and the board model is
    /// loaded or known missing (each loads, or is fitted, in the background
    /// at start).
    pub fn learned(&self) -> bool {
        self.relevance.chat.get().is_some() && self.relevance.board.get().is_some()
    }

    /// The board model, when there is one and it is on.
    fn board_model(&self) -> Option<&relevance::board::BoardRelevance> {
        let model = self.relevance.board.get()?.as_ref()?;
        self.config.learned_board.then_some(model)
    }

    /// Where the board moments' candidates are kept once `start`ed.
    pub fn trace(&self) -> std::sync::Arc<RecallTrace> {
        self.trace.clone()
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
        let session = model_recall::Session {
            model,
            memory: &self.memory,
            base: SearchFilter {
                exclude_ids: state.given.keys().copied().collect(),
                ..self.base_filter(trigger, ctx, state, now)
            },
            sampling,
            limit: self.config.limit,
        };
        let read = Situation::read(trigger, ctx);
        let summary = read.summary();
        let situation = format!(
            "{} at move {}. The situation: {summary}. Concepts it shows (search by these tags): {}",
            trigger.kind.as_str(),
            ctx.move_count,
            read.tags().join(", ")
        );
        match model_recall::choose(&session, persona, &situation).await {
            Ok(Some(chosen)) => {
                let chosen = callback::with_callback(chosen, self.callback(trigger, ctx).await?);
                Ok(hand_over(
                    chosen,
                    state,
                    &format!("subconscious: {summary}"),
                    now,
                    (trigger.kind, ctx.move_count),
                ))
            }
            Ok(None) => self.recall(trigger, ctx, state).await,
            Err(e) => {
                tracing::warn!("LLM subconscious failed ({e}); the heuristic recalls");
                self.recall(trigger, ctx, state).await
            }
        }
    }

    /// The guard rails every search keeps: this persona, this player (and
    /// lore), minus what this match just made (so it is not handed straight
    /// back), unless the player asks what the persona remembers: "you told
    /// me ten minutes ago" is the answer then. What was given lately is
    /// dropped after the search (`RecallState::given_for`), or, for the
    /// model, by the filter.
    fn base_filter(
        &self,
        trigger: &Trigger,
        ctx: &GameContext,
        state: &mut RecallState,
        now: DateTime<Utc>,
    ) -> SearchFilter {
        let given_ttl = Duration::seconds(self.config.given_ttl_secs as i64);
        state.given.retain(|_, g| now - g.at < given_ttl);
        let created_since = now - Duration::seconds(self.config.created_ttl_secs as i64);
        let asked = trigger.heard.as_ref().is_some_and(|h| h.shows(Intent::AsksMemory));
        SearchFilter {
            persona_id: Some(ctx.persona_id.clone()),
            player_id: Some(ctx.player_id),
            include_lore: true,
            exclude_created_in_match_since: (!asked).then_some((ctx.match_id, created_since.timestamp())),
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
        let filter = self.base_filter(trigger, ctx, state, now);
        let situation = Situation::read(trigger, ctx);
        tracing::debug!(trigger = trigger.kind.as_str(), about = ?situation.about, topics = ?situation.topics, "situation: {}", situation.summary());
        let queries = self.queries(&situation);
        // A chat line searched by its own words (not a stand-in the model
        // could afford) is read by the relevance model, which weighs each
        // of the player's nearest memories against the others: all of them
        // come, however far.
        let learned = match (&situation.chat, self.relevance.chat.get()) {
            (Some(text), Some(model)) if self.config.learned_relevance && queries[0] == *text => Some(model),
            _ => None,
        };
        // At the board the board model reads every one of the player's
        // nearest memories likewise (and so does a trace, so that what it is
        // fitted on is what it reads).
        // (Not yet the greeting or the end, whose one memory of each subject
        // the cues and the record choose better than the model on the
        // development halves: the record, the last game, today's openings.)
        let at_board = situation.chat.is_none();
        let in_game = at_board && !matches!(trigger.kind, TriggerKind::BeforeMatch | TriggerKind::AfterMatch);
        let board_model = self.board_model().filter(|_| in_game);
        let weighing = at_board && (board_model.is_some() || self.trace.is_on());
        let floor = match learned.is_some() || weighing {
            true => f32::MIN,
            false => self.meaning_floor(&situation),
        };
        let board = ctx.live_board();
        let wide = self.config.candidates.max(self.config.limit);
        let mut searches: Vec<(String, Search)> = queries
            .iter()
            .map(|q| {
                let by_meaning = Search {
                    min_score: floor,
                    ..search(filter.clone(), wide)
                };
                (q.clone(), by_meaning)
            })
            .collect();
        // Memories naming what the moment shows come back whatever their words.
        // Only cues strong enough to bring a memory alone: the setting's
        // weak ones ("the middlegame") only add to what was found otherwise,
        // and reading their every match would cost each routine move a read.
        // And the kinds a chat line is about: their nearest by meaning come
        // (`fuse::nearest_told`) even when no meaning is close to the line.
        let mut tags = situation.tags_from(self.config.tag_gate);
        for told in situation.told_tags() {
            if !tags.contains(&told) {
                tags.push(told);
            }
        }
        if !tags.is_empty() {
            let tagged = SearchFilter { tags, ..filter.clone() };
            searches.push((queries[0].clone(), search(tagged, wide)));
        }
        // A lorebook's entry comes when the chat line says one of its keys.
        if let Some(text) = &situation.chat {
            let keyed = SearchFilter {
                tags: crate::memory::key_tags_in(text),
                ..filter.clone()
            };
            if !keyed.tags.is_empty() {
                searches.push((queries[0].clone(), search(keyed, self.config.limit)));
            }
        }
        // ... and so do those made at this very position or in this opening.
        let at_board = BoardFilter {
            position_key: board.position_key.clone(),
            eco: board.eco.clone(),
            line: board.position_key.clone(),
        };
        if !at_board.is_empty() {
            let placed = SearchFilter {
                board: Some(at_board),
                include_lore: false,
                ..filter.clone()
            };
            searches.push((queries[0].clone(), search(placed, self.config.limit)));
        }
        // A chat line is also searched by its words (BM25): names, places,
        // things. And a memory that names the move just played ("Bxh7+") is
        // found by its words, however far its meaning (`fuse` checks the move).
        let mut by_words = Vec::new();
        if let Some(text) = &situation.chat {
            by_words.push(word_search(text.clone(), &filter, wide));
        }
        let moves: Vec<&str> = situation.moves().into_iter().filter(|san| san.len() >= 3).collect();
        if !moves.is_empty() {
            by_words.push(word_search(moves.join(" "), &filter, self.config.limit));
        }
        let Found {
            by_meaning: mut found,
            by_words,
        } = self.memory.search_all(searches, by_words).await?;
        let mut by_words = by_words.into_iter();
        let mut words = HashMap::new();
        if situation.chat.is_some() {
            for hit in by_words.next().unwrap_or_default() {
                words.insert(hit.memory.id, hit.score);
                found.push(hit);
            }
        }
        found.extend(by_words.flatten());
        // Each memory once, as its search by meaning found it if one did.
        let mut seen = HashSet::new();
        found.retain(|r| seen.insert(r.memory.id));
        // The relevance model reads each candidate's nearness to the line.
        let nearness = match (&situation.chat, learned) {
            (Some(text), Some(model)) => self.nearness(text, &mut found, model).await?,
            _ => HashMap::new(),
        };
        let board_p = match weighing {
            true => {
                let at = (trigger, ctx, &situation, &board);
                self.weigh_at_board(&queries[0], &mut found, at, board_model).await?
            }
            false => None,
        };
        let evidence = fuse::Evidence {
            situation: &situation,
            board: &board,
            words: &words,
            relevance: learned,
            nearness: &nearness,
            board_relevance: board_p.as_ref(),
            handed: &|id| state.given_before(id, trigger.kind, ctx.move_count),
        };
        let mut chosen = fuse::rank(found, &evidence, now, &self.config, self.memory.config());
        // The persona's lore is told once in a while, not again for each new
        // reason: the player's own memories come back when the moment changes.
        let lore = |r: &Recalled| r.memory.player_id.is_none();
        // A key the player says brings its line back even so: they asked.
        let asked = |r: &Recalled| r.why.starts_with(fuse::BY_KEY);
        let told = |r: &Recalled| {
            state.given_for(r.memory.id, &r.why, trigger.kind, ctx.move_count)
                || (lore(r) && !asked(r) && state.given(r.memory.id))
        };
        chosen.retain(|r| !told(r));
        use crate::triggers::TriggerKind::{AfterMatch, BeforeMatch};
        let by_subject = matches!(trigger.kind, BeforeMatch | AfterMatch);
        if by_subject {
            fuse::latest_game_first(&mut chosen, self.config.tag_gate);
        }
        let chosen = fuse::choose(chosen, &self.config, by_subject);
        let chosen = callback::with_callback(chosen, self.callback(trigger, ctx).await?);
        Ok(hand_over(
            chosen,
            state,
            &situation.summary(),
            now,
            (trigger.kind, ctx.move_count),
        ))
    }

    /// The texts to search by meaning; a chat line's own words only while
    /// the model can afford them (every other query is pinned).
    fn queries(&self, situation: &Situation) -> Vec<String> {
        let wanted = situation.queries();
        if situation.chat.is_none() {
            return wanted;
        }
        let limits = self.query_limits();
        let text = &wanted[0];
        vec![
            self.memory
                .embedder()
                .affordable(text, situation::CHATTING, limits)
                .to_string(),
        ]
    }
}

impl Subconscious {
    /// When a chat line's own words may run the model (`recall.chat_query_*`).
    pub fn query_limits(&self) -> QueryLimits {
        QueryLimits {
            max_backlog: self.config.chat_query_max_backlog,
            max_share: self.config.chat_query_model_share,
        }
    }

    /// Below this similarity a memory found by meaning alone could never be
    /// handed over (`fuse::rank`), so its row is not even read: cues need
    /// `cue_min_similarity`; a chat line's best match must stand
    /// `standout_margin` clear of the next, so nothing under
    /// `standout_similarity - standout_margin` can change that either.
    fn meaning_floor(&self, situation: &Situation) -> f32 {
        let c = &self.config;
        match situation.chat {
            Some(_) => (c.standout_similarity - c.standout_margin).min(c.worded_min_similarity),
            None => c.cue_min_similarity,
        }
    }
}

fn word_search(text: String, filter: &SearchFilter, limit: usize) -> WordSearch {
    WordSearch {
        text,
        filter: filter.clone(),
        limit,
    }
}

fn search(filter: SearchFilter, limit: usize) -> Search {
    Search {
        filter,
        limit,
        min_score: f32::MIN,
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
fn hand_over(
    found: Vec<Recalled>,
    state: &mut RecallState,
    query: &str,
    now: DateTime<Utc>,
    at: (TriggerKind, usize),
) -> Recall {
    let (kind, moves) = at;
    for r in &found {
        let given = Given {
            at: now,
            why: r.why.clone(),
            kind,
            moves,
        };
        state.given.insert(r.memory.id, given);
    }
    Recall {
        log: recall_entries(&found, query),
        memories: found,
    }
}

#[cfg(test)]
mod tests;
