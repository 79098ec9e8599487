//! Strength, decay and ranking. Strength is stored as of `decayed_at` and
//! halves every `half_life_days` after that; a pinned or important memory
//! never falls below the floor. Recall ranks by cosine similarity plus
//! weighted importance, strength and recency, plus a boost when the live game
//! stands where the memory was made.

use chrono::{DateTime, Utc};

use super::model::{Memory, Recalled, Reinforcement};
use crate::config::{MemoryConfig, RecallConfig};

const SECONDS_PER_DAY: f32 = 86_400.0;

fn days_between(from: DateTime<Utc>, to: DateTime<Utc>) -> f32 {
    ((to - from).num_seconds() as f32 / SECONDS_PER_DAY).max(0.0)
}

pub fn floor(m: &Memory, config: &MemoryConfig) -> f32 {
    if m.pinned || m.importance >= config.high_importance {
        config.decay_floor
    } else {
        0.0
    }
}

/// The memory's strength now.
pub fn current_strength(m: &Memory, now: DateTime<Utc>, config: &MemoryConfig) -> f32 {
    let since = m.decayed_at.unwrap_or(m.last_seen_at);
    let decayed = m.strength * 0.5f32.powf(days_between(since, now) / config.half_life_days);
    decayed.max(floor(m, config)).min(1.0)
}

/// Strength after one more source said the same thing.
pub fn reinforced(m: &Memory, now: DateTime<Utc>, config: &MemoryConfig) -> f32 {
    let s = current_strength(m, now, config);
    s + (1.0 - s) * config.reinforce_gain
}

/// Sources kept on a memory: the first ones and the latest ones.
const MAX_REINFORCEMENTS: usize = 32;

/// `older` takes in `newer`, which says the same thing: stronger, seen now,
/// as important as either, `newer`'s words (and sources) kept as sources,
/// and the player's wishes about either one (pin, never recall) kept.
pub fn absorb(older: &mut Memory, newer: &Memory, now: DateTime<Utc>, config: &MemoryConfig) {
    older.strength = reinforced(older, now, config);
    older.decayed_at = Some(now);
    older.last_seen_at = now.max(newer.last_seen_at);
    older.importance = older.importance.max(newer.importance);
    older.pinned |= newer.pinned;
    older.never_recall |= newer.never_recall;
    older.reinforcements.push(Reinforcement {
        match_id: newer.related_match_id,
        created_by: newer.created_by,
        content: newer.content.clone(),
        at: newer.created_at,
    });
    older.reinforcements.extend(newer.reinforcements.iter().cloned());
    let excess = older.reinforcements.len().saturating_sub(MAX_REINFORCEMENTS);
    older.reinforcements.drain(1..1 + excess);
}

/// Where the live game stands, for position-indexed recall.
#[derive(Debug, Clone, Default)]
pub struct LiveBoard {
    pub position_key: Option<String>,
    pub eco: Option<String>,
    pub opening: Option<String>,
}

/// Re-scores `found` (cosine similarity in `score`) and sorts best first.
pub fn rank(
    found: &mut [Recalled],
    board: &LiveBoard,
    now: DateTime<Utc>,
    recall: &RecallConfig,
    memory: &MemoryConfig,
) {
    for r in found.iter_mut() {
        let m = &r.memory;
        let recency = 0.5f32.powf(days_between(m.last_seen_at, now) / recall.recency_half_life_days);
        let mut score = r.score
            + recall.importance_weight * m.importance
            + recall.strength_weight * current_strength(m, now, memory)
            + recall.recency_weight * recency;
        if let Some((boost, why)) = board_match(m, board, recall) {
            score += boost;
            r.why = why;
        }
        r.score = score;
    }
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
}

/// How the board now matches the one a memory was made at: the same
/// position (what was said there comes back with it), or, for a memory
/// about the play, the same opening (a life fact told in the Queen's Pawn
/// Game is not about every Queen's Pawn Game).
pub fn board_match(m: &Memory, board: &LiveBoard, recall: &RecallConfig) -> Option<(f32, String)> {
    let tag = m.position.as_ref()?;
    let when = m.created_at.format("%Y-%m-%d");
    if board.position_key.as_ref() == Some(&tag.key) {
        return Some((
            recall.same_position_boost,
            format!("we reached this exact position on {when}"),
        ));
    }
    if tag.eco.is_some() && board.eco == tag.eco && m.memory_type.about_the_game() {
        let name = tag.opening.as_deref().unwrap_or("this opening");
        return Some((recall.same_opening_boost, format!("we played {name} on {when}")));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::CreatedBy;
    use crate::memory::model::{MemoryType, PositionTag};
    use chrono::Duration;

    fn candidate(memory: Memory, similarity: f32) -> Recalled {
        Recalled {
            memory,
            similarity,
            score: similarity,
            why: String::new(),
            relevance: None,
        }
    }

    fn aged(days: i64, importance: f32, pinned: bool) -> Memory {
        let then = Utc::now() - Duration::days(days);
        Memory {
            importance,
            pinned,
            created_at: then,
            last_seen_at: then,
            ..Memory::new("pip", MemoryType::PlayerBehavior, "x", CreatedBy::MainAgent)
        }
    }

    #[test]
    fn strength_halves_every_half_life() {
        let c = MemoryConfig::default();
        let s = current_strength(&aged(30, 0.5, false), Utc::now(), &c);
        assert!((s - 0.5).abs() < 0.01, "{s}");
        let s = current_strength(&aged(300, 0.5, false), Utc::now(), &c);
        assert!(s < 0.01, "{s}");
    }

    #[test]
    fn pinned_and_important_memories_keep_the_floor() {
        let c = MemoryConfig::default();
        assert_eq!(current_strength(&aged(3000, 0.5, true), Utc::now(), &c), c.decay_floor);
        assert_eq!(current_strength(&aged(3000, 0.9, false), Utc::now(), &c), c.decay_floor);
        assert!(current_strength(&aged(3000, 0.79, false), Utc::now(), &c) < 0.01);
    }

    #[test]
    fn reinforcing_moves_strength_towards_one() {
        let c = MemoryConfig::default();
        let m = aged(30, 0.5, false);
        assert!((reinforced(&m, Utc::now(), &c) - 0.75).abs() < 0.01);
    }

    #[test]
    fn absorbing_keeps_sources_flags_and_a_bounded_history() {
        let c = MemoryConfig::default();
        let mut older = aged(30, 0.3, false);
        for i in 0..40 {
            let newer = Memory {
                pinned: i == 5,
                importance: 0.9,
                ..Memory::new(
                    "pip",
                    MemoryType::PlayerBehavior,
                    &format!("said {i}"),
                    CreatedBy::MainAgent,
                )
            };
            absorb(&mut older, &newer, Utc::now(), &c);
        }
        assert!(older.pinned && older.importance == 0.9 && older.strength > 0.99);
        assert_eq!(older.reinforcements.len(), MAX_REINFORCEMENTS);
        assert_eq!(older.reinforcements[0].content, "said 0", "the first source stays");
        assert_eq!(
            older.reinforcements.last().unwrap().content,
            "said 39",
            "and the latest"
        );
    }

    #[test]
    fn the_same_position_outranks_a_closer_text_match() {
        let recall = RecallConfig::default();
        let mut tagged = aged(30, 0.5, false);
        tagged.position = Some(PositionTag {
            key: "00000000000000aa".into(),
            eco: Some("B20".into()),
            opening: Some("Sicilian Defense".into()),
        });
        let plain = aged(30, 0.5, false);
        let mut found = vec![candidate(plain, 0.6), candidate(tagged.clone(), 0.4)];
        let board = LiveBoard {
            position_key: Some("00000000000000aa".into()),
            ..LiveBoard::default()
        };
        rank(&mut found, &board, Utc::now(), &recall, &MemoryConfig::default());
        assert_eq!(found[0].memory.id, tagged.id);
        assert!(found[0].why.contains("exact position"), "{}", found[0].why);
        // A life fact told there comes back at that position, not at
        // every position of its opening.
        let told = Memory {
            memory_type: MemoryType::PlayerObservation,
            ..tagged.clone()
        };
        assert!(board_match(&told, &board, &recall).is_some());
        let same_opening = LiveBoard {
            position_key: Some("00000000000000bb".into()),
            eco: Some("B20".into()),
            ..LiveBoard::default()
        };
        assert_eq!(board_match(&told, &same_opening, &recall), None);
        assert!(
            board_match(&tagged, &same_opening, &recall).is_some(),
            "a memory of the play does"
        );
    }

    #[test]
    fn stronger_and_more_important_memories_rank_higher_at_equal_similarity() {
        let (weak, strong) = (aged(200, 0.2, false), aged(1, 0.9, false));
        let mut found = vec![candidate(weak, 0.5), candidate(strong.clone(), 0.5)];
        rank(
            &mut found,
            &LiveBoard::default(),
            Utc::now(),
            &RecallConfig::default(),
            &MemoryConfig::default(),
        );
        assert_eq!(found[0].memory.id, strong.id);
    }
}
