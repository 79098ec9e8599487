//! Synthetic index points: random unit vectors and the points that carry
//! them, for filling a vector index to a size (bench memory, bench trigger).

use chrono::Utc;
use rand::Rng;
use rand::rngs::StdRng;

use kibitz::embed::DIMENSIONS;
use kibitz::ids::{MemoryId, PlayerId};
use kibitz::memory::MemoryType;
use kibitz::memory::vector::IndexedMemory;

/// A stored point with no SQL row behind it, for filling an index.
pub fn synthetic_point(vector: Vec<f32>, player: Option<PlayerId>, persona: &str) -> IndexedMemory {
    IndexedMemory {
        id: MemoryId::new(),
        vector,
        player_id: player,
        persona_id: persona.into(),
        memory_type: MemoryType::PlayerObservation,
        match_id: None,
        created_at: Utc::now().timestamp(),
        recallable: true,
        position_key: None,
        eco: None,
        tags: Vec::new(),
        line: Vec::new(),
        text: Default::default(),
    }
}

pub fn random_unit(rng: &mut StdRng) -> Vec<f32> {
    // Sums of uniforms are close enough to Gaussian for direction sampling.
    let mut v: Vec<f32> = (0..DIMENSIONS)
        .map(|_| (0..4).map(|_| rng.r#gen::<f32>() - 0.5).sum())
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}
