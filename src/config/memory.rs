//! `[memory]`: what a new memory does to the ones already held, and how
//! strength decays.

use super::ConfigError;
use super::declare::{NONE, env, section};

section! {
    /// What a new memory does to the ones already held, and how strength decays.
    pub struct MemoryConfig {
        /// Cosine similarity at or above which a memory that agrees with an older
        /// one reinforces it instead of being added (tuned on bench/write_policy.json).
        pub duplicate_threshold: f32 = 0.9, NONE;
        /// Similarity at or above which opposite sentiment ("loves" / "hates") or
        /// different figures about the same thing supersede the older memory.
        pub contradiction_threshold: f32 = 0.75, NONE;
        /// How far a reinforcement moves strength towards 1.
        pub reinforce_gain: f32 = 0.5, NONE;
        /// Strength halves in this many days without reinforcement.
        pub half_life_days: f32 = 30.0, NONE;
        /// Pinned and important memories never decay below this strength.
        pub decay_floor: f32 = 0.5, NONE;
        /// Importance at or above which a memory is protected by the floor.
        pub high_importance: f32 = 0.8, NONE;
        /// When the consolidation job runs (6-field cron, UTC); it also runs after every match.
        pub consolidate_cron: String = "0 30 3 * * *".into(), env("KIBITZ_CONSOLIDATE_CRON");
    }
}

impl MemoryConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        let fractions = [
            ("memory.duplicate_threshold", self.duplicate_threshold),
            ("memory.contradiction_threshold", self.contradiction_threshold),
            ("memory.reinforce_gain", self.reinforce_gain),
            ("memory.decay_floor", self.decay_floor),
            ("memory.high_importance", self.high_importance),
        ];
        for (key, value) in fractions {
            if !(0.0..=1.0).contains(&value) {
                return Err(ConfigError::Invalid {
                    key,
                    message: format!("must be in [0, 1], got {value}"),
                });
            }
        }
        if self.half_life_days.is_nan() || self.half_life_days <= 0.0 {
            return Err(ConfigError::Invalid {
                key: "memory.half_life_days",
                message: format!("must be positive, got {}", self.half_life_days),
            });
        }
        Ok(())
    }
}
