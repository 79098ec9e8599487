//! `[recall]`: how the subconscious picks memories to hand to the main
//! agent (the fusion in `subconscious/fuse.rs` reads these).

use super::declare::{NONE, section};

section! {
    /// How the subconscious picks memories to hand to the main agent.
    pub struct RecallConfig {
        /// At most this many memories per trigger.
        pub limit: usize = 3, NONE;
        /// No memory is offered on its meaning alone below this cosine
        /// similarity (tags, the board or shared words may still bring it).
        pub min_score: f32 = 0.2, NONE;
        /// A memory given to the main agent is not given again within this time.
        pub given_ttl_secs: u64 = 600, NONE;
        /// A memory created in this match is not recalled within this time.
        pub created_ttl_secs: u64 = 300, NONE;
        /// How many semantic matches are re-ranked to pick `limit`.
        pub candidates: usize = 12, NONE;
        /// Ranking: cosine similarity plus these weights times importance,
        /// decayed strength and recency (each 0..=1).
        pub importance_weight: f32 = 0.15, NONE;
        /// ... times the memory's decayed strength.
        pub strength_weight: f32 = 0.15, NONE;
        /// ... times its recency.
        pub recency_weight: f32 = 0.1, NONE;
        /// Recency halves in this many days since the memory was last seen.
        pub recency_half_life_days: f32 = 30.0, NONE;
        /// Added when the live game is in the exact position the memory was made in.
        pub same_position_boost: f32 = 0.3, NONE;
        /// Added when the live game is in the same opening (ECO code).
        pub same_opening_boost: f32 = 0.1, NONE;
        /// A chat line's recall searches by the line's own words unless this
        /// many texts already wait for the embedding model; then by a fixed
        /// sentence ("The player is chatting with me."), so an overloaded model
        /// slows memory saves but not every chat answer. 0: always the fixed
        /// sentence (no model run for a chat's recall).
        pub chat_query_max_backlog: usize = 16, NONE;
        /// ... or unless the model has taken more than this share of one core
        /// over the last second or so (0.25: a quarter). A model that keeps up
        /// with every chat may still take the CPU the moves of every match
        /// need; past this share chats are recalled by the fixed sentence and
        /// the model's time goes to the memories, which cannot be shed. 1: no limit.
        pub chat_query_model_share: f64 = 0.25, NONE;
        /// A memory is handed over only with evidence: cues of the situation it
        /// answers weighing at least this much (see `subconscious::situation`),
        /// the same board, or a similarity of at least the next two.
        pub tag_gate: f32 = 0.5, NONE;
        /// ... to a cue's phrase (a fixed sentence such as "A fork: ...").
        pub cue_min_similarity: f32 = 0.45, NONE;
        /// ... to a chat line's own words.
        pub chat_min_similarity: f32 = 0.35, NONE;
        /// A chat line's best match by meaning counts when it is at least this
        /// close and this much closer than the next one: it stands out.
        pub standout_similarity: f32 = 0.25, NONE;
        /// ... and this much closer than the next one.
        pub standout_margin: f32 = 0.1, NONE;
        /// A line that tells of the player's life or tastes brings the memories
        /// of that kind nearest its meaning, at least this close: below it the
        /// nearest is only the least far. The kind is the learned reader's
        /// (`listen::about`), so the floor can sit low, among MiniLM's loosely
        /// related pairs: 0.1 beat 0.2, 0.15 and 0.05 on both halves of the
        /// chat-recall corpus (`corpus/recall/`), recall 0.74 -> 0.78 and
        /// 0.67 -> 0.72 at the same precision.
        pub told_min_similarity: f32 = 0.1, NONE;
        /// Shared words (BM25 of the chat line over the memory) count from this
        /// score, when the meaning is at least `worded_min_similarity` close;
        /// they add up to twice `word_weight` to the ranking.
        pub word_min_score: f32 = 3.0, NONE;
        /// Shared words count only when the meaning is at least this close.
        pub worded_min_similarity: f32 = 0.2, NONE;
        /// What shared words add to the ranking, at most twice this.
        pub word_weight: f32 = 0.1, NONE;
        /// A chat line brings the player's memories the relevance model
        /// (`subconscious::relevance`, fitted on `corpus/recall/`) gives at
        /// least this probability of being what the line is about; the
        /// thresholds above serve only until it is loaded, and for lore.
        /// 0.15 with `relevance_of_best` 0.5 was best on the corpus's files,
        /// each scored by a model fitted on the others (`kibitz bench
        /// relevance`): precision@3 0.65, 0.72, 0.67 at recall@3 0.75, 0.82,
        /// 0.81, against 0.45-0.50 at 0.65-0.76 by similarity alone.
        pub relevance_min: f32 = 0.15, NONE;
        /// ... and at least this share of the likeliest memory's probability:
        /// what the line is plainly about leaves out what it only may be.
        pub relevance_of_best: f32 = 0.5, NONE;
        /// Whether chat lines recall by the relevance model at all (false:
        /// by the similarity thresholds above, to compare the two).
        pub learned_relevance: bool = true, NONE;
        /// At the board (every trigger but a chat line), the board model
        /// (`subconscious/relevance/board.rs`, fitted on `corpus/moments/`'s
        /// traces) brings a memory whose probability is at least this...
        /// 0.15 with `board_of_best` 0.5 was best fitted on one traces file
        /// and scored on the other (`kibitz bench relevance`): precision@3
        /// 0.61 and 0.63 at recall@3 0.75 and 0.72 among the candidates.
        pub board_min: f32 = 0.15, NONE;
        /// ... and at least this share of the likeliest memory's.
        pub board_of_best: f32 = 0.5, NONE;
        /// Whether board moments recall by the board model beside the cues
        /// (it adds what the cues miss; a memory told earlier in the match
        /// it does not bring back on its own, see docs/recall.md).
        pub learned_board: bool = true, NONE;
    }
}
