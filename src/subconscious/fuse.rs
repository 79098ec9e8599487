//! How the subconscious chooses among what its searches found. Every
//! candidate scores the weight of the situation's cues it answers (by its
//! concept tags) plus its best similarity to the situation's queries; then
//! importance, strength, recency and the board (`strength::rank`). Only
//! memories with evidence are handed over: a cue answered, the same board,
//! or a close enough meaning. The persona's lore takes at most one slot,
//! and none beside the player's own memories that fit unless its key is
//! said or the line asks about the persona.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::board::Phase;
use super::names;
use super::relevance::board::{self as moment, subject_of};
use super::relevance::{Candidate, Line, Relevance};
use super::situation::Situation;
use crate::chess::{notation, openings};
use crate::config::{MemoryConfig, RecallConfig};
use crate::ids::MemoryId;
use crate::listen::Intent;
use crate::memory::strength::{self, LiveBoard};
use crate::memory::{Recalled, dated, lexical};

/// Why a memory came when no cue and no board brought it: its meaning.
pub const BY_MEANING: &str = "it came to mind";
pub const BY_WORDS: &str = "what you said";
/// Why a lore line came when the player said one of its keys (then the key).
pub const BY_KEY: &str = "you mentioned ";

/// What a candidate can be recalled by, beside its similarity.
pub struct Evidence<'a> {
    pub situation: &'a Situation,
    pub board: &'a LiveBoard,
    /// BM25 of the chat line's words over each memory's words.
    pub words: &'a HashMap<MemoryId, f32>,
    /// The relevance model, for a chat line searched by its own words.
    pub relevance: Option<&'a Relevance>,
    /// Its nearness of the line to each of the player's memories found
    /// (`relevance::nearness`); their own similarity where it is missing.
    pub nearness: &'a HashMap<MemoryId, f32>,
    /// At the board, the board model's probability for each of the
    /// player's memories found (`board_candidates`).
    pub board_relevance: Option<&'a HashMap<MemoryId, f32>>,
    /// Handed over earlier in this match: the board model does not bring
    /// these back on its probability alone (a greeting's memory is not
    /// the likeliest again at a routine move); a cue of the moment, the
    /// board or the move may.
    pub handed: &'a (dyn Fn(MemoryId) -> bool + Sync),
}

/// The candidates with evidence, scored and sorted best first, each with
/// the reason it came.
pub fn rank(
    mut found: Vec<Recalled>,
    evidence: &Evidence<'_>,
    now: DateTime<Utc>,
    recall: &RecallConfig,
    memory: &MemoryConfig,
) -> Vec<Recalled> {
    let (situation, board) = (evidence.situation, evidence.board);
    let words = |r: &Recalled| evidence.words.get(&r.memory.id).copied().unwrap_or(0.0);
    let min_similarity = match situation.chat {
        Some(_) => recall.chat_min_similarity,
        None => recall.cue_min_similarity,
    };
    for r in &found {
        tracing::trace!(similarity = r.similarity, words = words(r), tags = ?r.memory.tags, "found: {}", r.memory.content);
    }
    let said: Vec<String> = situation
        .chat
        .as_deref()
        .map(crate::memory::key_tags_in)
        .unwrap_or_default();
    let keyed = |r: &Recalled| {
        let tag = r
            .memory
            .tags
            .iter()
            .find(|t| t.starts_with("key:") && said.contains(t))?;
        Some(tag.trim_start_matches("key:").to_string())
    };
    let standout = standing_out(&found, recall);
    let lined: Vec<MemoryId> = found
        .iter()
        .filter(|r| on_its_line(r, situation, board))
        .map(|r| r.memory.id)
        .collect();
    let told = nearest_told(&found, situation, recall.told_min_similarity);
    // With the model, a chat line brings the player's memories it says the
    // line is about, and a question about what the persona remembers the
    // memories its cues name; the thresholds serve lore alone. At the board
    // the board model does the same for the moment.
    let learned = match (evidence.relevance, evidence.board_relevance) {
        (Some(model), _) => learned_relevance(model, &found, situation, evidence.nearness),
        (None, Some(board)) => board.clone(),
        (None, None) => HashMap::new(),
    };
    let asks_memory = situation.intent == Some(Intent::AsksMemory);
    let likeliest = learned.values().copied().fold(0.0, f32::max);
    let (least, of_best) = match evidence.relevance {
        Some(_) => (recall.relevance_min, recall.relevance_of_best),
        None => (recall.board_min, recall.board_of_best),
    };
    let relevant = |p: f32| p >= least && p >= of_best * likeliest;
    // A line about one of the player's own memories brings theirs, not the
    // persona's stories: lore comes then by its key or a cue the line names.
    let theirs = learned.values().any(|p| relevant(*p));
    // A name the line shares with a memory ("Ada slept four hours").
    // (Read once, and only for a chat line: not on every move's recall.)
    let telling = match situation.chat {
        Some(_) => names::telling(&found),
        None => Vec::new(),
    };
    let name_shared = |r: &Recalled| {
        let line = situation.chat.as_deref()?;
        names::shared(line, &r.memory.content, &telling)
    };
    // A memory that names the very move just played, or about to be (not
    // a move of a line they play with the other colour: "3.Bc4 Bc5 4.b4").
    let moves = situation.moves();
    let named = |r: &Recalled| {
        if played_with_the_other_colour(&r.memory.tags, situation) {
            return None;
        }
        moves
            .iter()
            .find(|san| notation::names_move(&r.memory.content, san))
            .copied()
    };
    // What they play with the other colour is beside the point at a board
    // (or a greeting) where they have this one; a chat line may ask of it.
    if situation.chat.is_none() {
        found.retain(|r| !of_the_other_colour(&r.memory.tags, situation, recall));
    }
    found.retain(|r| {
        let cues = situation.tag_score(&r.memory.tags);
        // A chat line about something else (Jupiter's moons) does not bring
        // the repertoire the opening is on; the very position still does.
        let on_line = lined.contains(&r.memory.id) && situation.chat.is_none();
        let placed = strength::board_match(&r.memory, board, recall).is_some() || on_line;
        // Shared words count when the meaning is close too: "a long shift"
        // and "night shifts", not "a long day" and "a long think".
        let worded = words(r) >= recall.word_min_score && r.similarity >= recall.worded_min_similarity;
        let close = r.similarity >= min_similarity || (situation.chat.is_some() && standout == Some(r.memory.id));
        let meant = close && r.similarity >= recall.min_score;
        let certain = keyed(r).is_some() || named(r).is_some() || name_shared(r).is_some();
        if let Some(p) = learned.get(&r.memory.id) {
            // Told earlier in this match, a memory comes again for a cue
            // central to this moment (not the sum of its setting's), or
            // for the very move: not for the likeliest, nor the same board.
            let again = evidence.board_relevance.is_some() && (evidence.handed)(r.memory.id);
            let cued = situation
                .best_match(&r.memory.tags)
                .is_some_and(|c| c.weight >= recall.tag_gate);
            let fits = (relevant(*p) && !again) || cued;
            return fits || (asks_memory && cues >= recall.tag_gate) || (placed && !again) || certain;
        }
        if theirs && r.memory.player_id.is_none() {
            // The persona's own story at a draw offer or a move the
            // player's memories answer takes a slot from them: it comes by
            // its key, or when the line asks about the persona itself.
            let asked_of_me = situation.intent == Some(Intent::AsksPersona);
            return certain || (asked_of_me && cues >= recall.tag_gate);
        }
        let evidence = certain || told.contains(&r.memory.id);
        cues >= recall.tag_gate || placed || worded || meant || evidence
    });
    for r in &mut found {
        if evidence.relevance.is_some() {
            r.relevance = learned.get(&r.memory.id).copied();
        }
        let worded = (words(r) / recall.word_min_score).min(2.0) * recall.word_weight;
        r.score = match learned.get(&r.memory.id) {
            Some(p) if asks_memory => situation.tag_score(&r.memory.tags) + p,
            Some(p) => *p,
            // Beside the board model's probabilities, lore ranks below the
            // likeliest of the player's own memories (its cues still order it).
            None if evidence.board_relevance.is_some() && theirs => {
                likeliest * 0.5 * (situation.tag_score(&r.memory.tags) + r.similarity).min(1.0)
            }
            None => situation.tag_score(&r.memory.tags) + r.similarity + worded,
        };
        r.why = match situation.best_match(&r.memory.tags) {
            Some(cue) => cue.reason.clone(),
            None if situation.chat.is_some() => BY_WORDS.to_string(),
            None => BY_MEANING.to_string(),
        };
        // A lorebook's key said aloud brings its entry, as it does in a card's home.
        if let Some(key) = keyed(r) {
            r.score += 2.0 * recall.word_weight;
            r.why = format!("{BY_KEY}{key}");
        }
        if let Some(name) = name_shared(r) {
            r.score += NAMED_MOVE;
            r.why = format!("you spoke of {name}");
        }
        if let Some(san) = named(r) {
            r.score += NAMED_MOVE;
            r.why = situation.why_named(san);
        }
        if lined.contains(&r.memory.id) {
            r.score += recall.same_opening_boost;
            r.why = "you are on a line you played before".to_string();
        }
    }
    // The board's reason ("we reached this exact position") wins over a cue's.
    strength::rank(&mut found, board, now, recall, memory);
    for r in &found {
        tracing::debug!(
            score = r.score,
            similarity = r.similarity,
            tags = ?r.memory.tags,
            why = r.why,
            "candidate: {}",
            r.memory.content
        );
    }
    found
}

/// The relevance model's probability that each of the player's memories
/// among `found` is what the chat line is about.
fn learned_relevance(
    model: &Relevance,
    found: &[Recalled],
    situation: &Situation,
    nearness: &HashMap<MemoryId, f32>,
) -> HashMap<MemoryId, f32> {
    let Some(line) = situation.chat.as_deref() else {
        return HashMap::new();
    };
    let mine: Vec<&Recalled> = found.iter().filter(|r| r.memory.player_id.is_some()).collect();
    let words = lexical::query(line);
    let candidates: Vec<Candidate<'_>> = mine
        .iter()
        .map(|r| Candidate {
            similarity: nearness.get(&r.memory.id).copied().unwrap_or(r.similarity),
            overlap: lexical::overlap(&words, &lexical::document(&r.memory.content)),
            tags: &r.memory.tags,
            memory_type: r.memory.memory_type,
        })
        .collect();
    let read = Line {
        about: &situation.about,
        topics: &situation.topics,
        intents: &situation.intents,
        words: line.split_whitespace().count(),
    };
    let mut learned = HashMap::with_capacity(mine.len());
    for (i, r) in mine.iter().enumerate() {
        let p = model.p(&read, &candidates, i);
        tracing::debug!(p, similarity = r.similarity, "relevance: {}", r.memory.content);
        learned.insert(r.memory.id, p);
    }
    learned
}

/// What naming the move just played (or a name the line and the memory
/// share) adds: as much as the strongest cue.
const NAMED_MOVE: f32 = 1.0;

/// How far below the nearest memory of what a line tells another may be
/// and still come with it.
const TOLD_MARGIN: f32 = 0.05;

/// A chat line about the player's life, tastes, record or habits: of each
/// kind it is about, the memories nearest its meaning ("got in late from
/// work again" and the night shifts), whatever their words; not every
/// memory of the kind.
fn nearest_told(found: &[Recalled], situation: &Situation, min_similarity: f32) -> Vec<MemoryId> {
    let mut told = Vec::new();
    for tag in situation.told_tags() {
        let of_kind = |r: &&Recalled| r.memory.player_id.is_some() && r.memory.tags.contains(&tag);
        let best = found
            .iter()
            .filter(of_kind)
            .map(|r| r.similarity)
            .fold(f32::NEG_INFINITY, f32::max);
        told.extend(
            found
                .iter()
                .filter(of_kind)
                .filter(|r| r.similarity >= best - TOLD_MARGIN && r.similarity >= min_similarity)
                .map(|r| r.memory.id),
        );
    }
    told
}

/// The memory whose meaning stands clear of every other's (the tea when
/// the player makes a hot drink), if one does.
fn standing_out(found: &[Recalled], recall: &RecallConfig) -> Option<MemoryId> {
    let mut by_meaning: Vec<&Recalled> = found.iter().collect();
    by_meaning.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
    let (best, next) = (by_meaning.first()?, by_meaning.get(1).map_or(0.0, |r| r.similarity));
    (best.similarity >= recall.standout_similarity && best.similarity - next >= recall.standout_margin)
        .then_some(best.memory.id)
}

/// Whether the memory is about the player's other colour only, and comes
/// for no more than being a repertoire ("knows the minority attack well"
/// read as a Black repertoire still answers a minority attack).
fn of_the_other_colour(tags: &[String], situation: &Situation, recall: &RecallConfig) -> bool {
    let beyond: Vec<String> = tags.iter().filter(|t| !repertoire(t)).cloned().collect();
    played_with_the_other_colour(tags, situation) && situation.tag_score(&beyond) < recall.tag_gate
}

/// Tagged with the colour the player does not have now, and not this one.
fn played_with_the_other_colour(tags: &[String], situation: &Situation) -> bool {
    let (this, other) = if situation.user_colour.is_white() {
        ("as_white", "as_black")
    } else {
        ("as_black", "as_white")
    };
    tags.iter().any(|t| t == other) && !tags.iter().any(|t| t == this)
}

/// A tag that says what is played: an opening, a colour, a gambit (an
/// opening choice too: theirs with the other colour is beside the point
/// when one is offered now).
fn repertoire(t: &str) -> bool {
    ["opening", "repertoire", "as_white", "as_black", "gambit"].contains(&t) || t.starts_with("opening:")
}

/// Whether the game stands on the line of moves the memory gives, played
/// by the player with the colour they have now.
fn on_its_line(r: &Recalled, situation: &Situation, board: &LiveBoard) -> bool {
    let Some(key) = &board.position_key else { return false };
    // Lines are openings: past the book's depth no memory's line reaches.
    if situation.board.as_ref().is_some_and(|b| b.phase != Phase::Opening) {
        return false;
    }
    let other_colour = if situation.user_colour.is_white() {
        "as_black"
    } else {
        "as_white"
    };
    !r.memory.tags.iter().any(|t| t == other_colour) && openings::line_keys(&r.memory.content).contains(key)
}

/// The best few of the ranked candidates, lore taking at most one slot.
/// A greeting and a match's end (`one_per_subject`) recall one memory of
/// each subject (the record, the last game, today's openings, a habit,
/// what they told): two past games say less than a game and a repertoire.
pub fn choose(mut ranked: Vec<Recalled>, recall: &RecallConfig, one_per_subject: bool) -> Vec<Recalled> {
    let mut lore = 0;
    // Two games recorded in the same words ("lost to me by resignation
    // after 1 move") say nothing the first did not: one slot, not two.
    let mut said: Vec<String> = Vec::new();
    let mut subjects: Vec<&'static str> = Vec::new();
    ranked.retain(|r| {
        let is_lore = r.memory.player_id.is_none();
        lore += usize::from(is_lore);
        let again = said.contains(&r.memory.content);
        said.push(r.memory.content.clone());
        // One of the persona's stories at a time, whoever else is found.
        let lore_beyond_one = is_lore && lore > 1;
        let subject = subject_of(&r.memory.tags).filter(|_| one_per_subject && !is_lore);
        let second_of_subject = subject.is_some_and(|s| subjects.contains(&s));
        subjects.extend(subject);
        !(again || lore_beyond_one || second_of_subject)
    });
    ranked.truncate(recall.limit);
    ranked
}

/// Of the past games among the candidates, the one whose words name the
/// latest day takes the place of the first, unless the first answers the
/// moment by more than `margin` (the stalemate when the game just ended
/// in one): "how our last game went" is the last one, not the likeliest.
pub fn latest_game_first(ranked: &mut Vec<Recalled>, margin: f32) {
    let games: Vec<usize> = (0..ranked.len())
        .filter(|&i| subject_of(&ranked[i].memory.tags) == Some("past_game"))
        .collect();
    let Some(&first) = games.first() else { return };
    let latest = games
        .iter()
        .filter_map(|&i| Some((dated::named_date(&ranked[i].memory.content)?, i)))
        .max();
    let close = |i: usize| ranked[first].score - ranked[i].score <= margin;
    if let Some((_, i)) = latest.filter(|&(_, i)| i != first && close(i)) {
        let game = ranked.remove(i);
        ranked.insert(first, game);
    }
}

/// Each of the player's memories among `found` as the board model reads
/// it: its nearness, the cues it answers, whether it was made here, names
/// this line or this move, its subject and type.
pub fn board_candidates(
    found: &[Recalled],
    situation: &Situation,
    board: &LiveBoard,
    recall: &RecallConfig,
) -> Vec<(MemoryId, moment::Candidate)> {
    let moves = situation.moves();
    let latest = latest_game(found);
    found
        .iter()
        .filter(|r| r.memory.player_id.is_some())
        .map(|r| {
            let tags = &r.memory.tags;
            let weighed = moment::Candidate {
                similarity: r.similarity,
                subject: subject_of(tags).map(str::to_string),
                memory_type: r.memory.memory_type,
                cue_score: situation.tag_score(tags),
                best_cue: situation
                    .cues
                    .iter()
                    .filter(|c| tags.contains(&c.tag))
                    .map(|c| c.weight)
                    .fold(0.0, f32::max),
                placed: strength::board_match(&r.memory, board, recall).is_some(),
                lined: on_its_line(r, situation, board),
                named: moves.iter().any(|san| notation::names_move(&r.memory.content, san)),
                other_colour: of_the_other_colour(tags, situation, recall),
                latest_game: latest == Some(r.memory.id),
            };
            (r.memory.id, weighed)
        })
        .collect()
}

/// Of the player's past games among `found`, the one whose words name the
/// latest day, or month ("how our last game went" is the last one).
fn latest_game(found: &[Recalled]) -> Option<MemoryId> {
    found
        .iter()
        .filter(|r| r.memory.player_id.is_some() && subject_of(&r.memory.tags) == Some("past_game"))
        .filter_map(|r| {
            let text = &r.memory.content;
            Some((
                dated::named_date(text).or_else(|| dated::named_month(text))?,
                r.memory.id,
            ))
        })
        .max()
        .map(|(_, id)| id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PlayerId;
    use crate::memory::{CreatedBy, Memory, MemoryType};

    fn found(player: Option<PlayerId>, text: &str, score: f32) -> Recalled {
        let memory = Memory {
            player_id: player,
            ..Memory::new("margot", MemoryType::PersonalNote, text, CreatedBy::MainAgent)
        };
        Recalled {
            memory,
            similarity: score,
            score,
            why: String::new(),
            relevance: None,
        }
    }

    #[test]
    fn one_of_the_personas_stories_at_a_time_with_or_without_the_players_memories() {
        let recall = RecallConfig::default();
        let stories = |ranked: &[Recalled]| ranked.iter().filter(|r| r.memory.player_id.is_none()).count();
        let lore = [
            "I grew up in Riga.",
            "My first club met above a bakery.",
            "I once drew Tal.",
        ];
        let only_lore: Vec<Recalled> = lore.iter().map(|t| found(None, t, 0.5)).collect();
        let chosen = choose(only_lore, &recall, false);
        assert_eq!((chosen.len(), stories(&chosen)), (1, 1), "{chosen:?}");
        let ann = PlayerId::new();
        let mut mixed = vec![found(Some(ann), "Ann is a nurse.", 0.9)];
        mixed.extend(lore.iter().map(|t| found(None, t, 0.5)));
        mixed.push(found(Some(ann), "Ann drinks tea.", 0.4));
        let chosen = choose(mixed, &recall, false);
        assert_eq!((chosen.len(), stories(&chosen)), (3, 1), "{chosen:?}");
    }
}
