//! A memory's words as a sparse vector, for BM25 recall beside recall by
//! meaning: "the tiles in Lisbon" finds "taught me chess in Lisbon", "a long
//! shift" finds "night shifts" (stemmed), whatever the embedding thinks.
//! Documents carry BM25 term-frequency weights, queries weight each term 1,
//! and the index multiplies by each term's inverse document frequency (its
//! sparse vector is configured with the IDF modifier), so the sum is BM25.
//! The tokenizer (English stop words, Snowball stemmer) is qdrant's own,
//! so the Qdrant server and qdrant-edge store the same terms.

use std::sync::LazyLock;

use qdrant_edge::bm25_embed::{EdgeBm25, EdgeBm25Config};
use qdrant_edge::external::ordered_float::NotNan;

/// The name of the sparse vector in both backends.
pub const TEXT_VECTOR: &str = "text";

/// Memories are a sentence or two: about this many terms after stop words.
const AVERAGE_TERMS: f64 = 12.0;

/// Term ids and weights, ids ascending.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sparse {
    pub indices: Vec<u32>,
    pub values: Vec<f32>,
}

impl Sparse {
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

static MODEL: LazyLock<EdgeBm25> = LazyLock::new(|| {
    let config = EdgeBm25Config {
        avg_len: NotNan::new(AVERAGE_TERMS).expect("a number"),
        ..EdgeBm25Config::default()
    };
    EdgeBm25::new(config).expect("the default English BM25 configuration is valid")
});

/// A memory's terms with their BM25 term-frequency weights.
pub fn document(text: &str) -> Sparse {
    let v = MODEL.embed_document(text);
    Sparse {
        indices: v.indices,
        values: v.values,
    }
}

/// A query's terms, each weighted 1.
pub fn query(text: &str) -> Sparse {
    let v = MODEL.embed_query(text);
    Sparse {
        indices: v.indices,
        values: v.values,
    }
}

/// How much of a memory's words a query shares: the sum of the memory's
/// term weights on the terms both hold (BM25 without the collection's
/// document frequencies, so a line and a memory score the same wherever
/// they are read: in a store of millions or a corpus of ten).
pub fn overlap(query: &Sparse, document: &Sparse) -> f32 {
    document
        .indices
        .iter()
        .zip(&document.values)
        .filter(|(i, _)| query.indices.contains(i))
        .map(|(_, w)| w)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(a: &Sparse, b: &Sparse) -> usize {
        a.indices.iter().filter(|i| b.indices.contains(i)).count()
    }

    #[test]
    fn overlap_weighs_the_memorys_shared_words_only() {
        let memory = document("Works night shifts at the bakery on Brick Lane");
        let shared = overlap(&query("another long shift at the bakery"), &memory);
        let one = overlap(&query("a long shift"), &memory);
        assert!(shared > one && one > 0.0, "{shared} {one}");
        assert_eq!(overlap(&query("is it raining there"), &memory), 0.0);
    }

    #[test]
    fn words_meet_on_their_stems_and_skip_stop_words() {
        let memory = document("Ann told me: \"I work night shifts as a nurse, so I am often tired\"");
        assert_eq!(
            shared(&memory, &query("I just came off a long shift at the hospital")),
            1,
            "shift"
        );
        assert_eq!(shared(&memory, &query("Is it raining where you are too?")), 0);
        assert!(query("the and of a").is_empty(), "stop words only");
        let sorted = memory.indices.windows(2).all(|w| w[0] < w[1]);
        assert!(sorted, "ids ascending, as both backends want");
    }
}
