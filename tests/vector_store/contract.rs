//! The behaviour every `VectorStore` must have, checked the same way on
//! the embedded index and on a Qdrant server (tests/vector_store.rs).

use chrono::Utc;
use kibitz::ids::{MatchId, MemoryId, PlayerId};
use kibitz::memory::MemoryType;
use kibitz::memory::vector::{BoardFilter, IndexedMemory, SearchFilter, VectorStore};

pub const DIM: usize = 384;

/// A unit vector pointing mostly along axis `i`, a little along axis `j`.
pub fn unit(i: usize, j: usize, mix: f32) -> Vec<f32> {
    let mut v = vec![0.0; DIM];
    v[i] = (1.0 - mix * mix).sqrt();
    v[j] += mix;
    v
}

pub fn point(
    vector: Vec<f32>,
    player: Option<PlayerId>,
    persona: &str,
    kind: MemoryType,
    m: Option<MatchId>,
    age_secs: i64,
) -> IndexedMemory {
    IndexedMemory {
        id: MemoryId::new(),
        vector,
        player_id: player,
        persona_id: persona.into(),
        memory_type: kind,
        match_id: m,
        created_at: Utc::now().timestamp() - age_secs,
        recallable: true,
        position_key: None,
        eco: None,
        tags: Vec::new(),
        line: Vec::new(),
        text: Default::default(),
    }
}

pub fn filter(persona: &str, player: Option<PlayerId>, lore: bool) -> SearchFilter {
    SearchFilter {
        persona_id: Some(persona.into()),
        player_id: player,
        include_lore: lore,
        ..SearchFilter::default()
    }
}

/// What a reopened store must still answer.
pub struct Kept {
    pub query: Vec<f32>,
    pub player: PlayerId,
    pub expected: Vec<MemoryId>,
}

/// The behaviour every `VectorStore` must have: scores, owner isolation,
/// type/date/match/board filters, recallable flag, delete.
pub async fn check_contract(store: &dyn VectorStore) -> Kept {
    let (p, q) = (PlayerId::new(), PlayerId::new());
    let m = MatchId::new();
    let p_close = point(unit(0, 1, 0.6), Some(p), "pip", MemoryType::PlayerBehavior, Some(m), 10);
    let mut p_far = point(unit(2, 3, 0.1), Some(p), "pip", MemoryType::GameContext, None, 5000);
    // With its words beside it (a second, sparse vector), as a real memory.
    p_far.text = kibitz::memory::lexical::document("Pat grows tomatoes on a balcony");
    let q_closest = point(unit(0, 1, 0.1), Some(q), "pip", MemoryType::PlayerBehavior, None, 10);
    let lore = point(unit(0, 1, 0.8), None, "pip", MemoryType::PersonalNote, None, 10);
    let other_persona = point(unit(0, 1, 0.0), Some(p), "margot", MemoryType::PlayerBehavior, None, 10);
    let before = store.count().await.unwrap();
    let all = vec![
        p_close.clone(),
        p_far.clone(),
        q_closest.clone(),
        lore.clone(),
        other_persona.clone(),
    ];
    store.upsert(all).await.unwrap();
    assert_eq!(store.count().await.unwrap(), before + 5);

    // A stored vector comes back as it went in (unit length, so even a
    // store that normalises for cosine keeps it); an unknown id is left out.
    let stored = store.vectors(vec![p_far.id, MemoryId::new()]).await.unwrap();
    assert_eq!(stored.len(), 1, "{:?}", stored.keys());
    let gap = stored[&p_far.id]
        .iter()
        .zip(&p_far.vector)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(gap < 1e-5, "the stored vector differs by {gap}");

    let query = unit(0, 1, 0.0);
    let hits = store
        .search(query.clone(), filter("pip", Some(p), true), 10)
        .await
        .unwrap();
    let found: Vec<MemoryId> = hits.iter().map(|h| h.id).collect();
    assert_eq!(
        found,
        vec![p_close.id, lore.id, p_far.id],
        "P's and lore, best first; never Q's or Margot's"
    );
    assert!(
        (hits[0].score - 0.8).abs() < 1e-3,
        "cosine of the two unit vectors is 0.8, got {}",
        hits[0].score
    );
    assert!((hits[1].score - 0.6).abs() < 1e-3, "got {}", hits[1].score);

    assert_eq!(
        ids(store, &query, filter("pip", Some(p), false)).await.len(),
        2,
        "without lore"
    );
    assert!(
        ids(store, &query, filter("pip", None, false)).await.is_empty(),
        "no owner means nobody's"
    );
    // Several searches in one call answer each as it would alone.
    let many = store
        .search_many(
            query.clone(),
            vec![
                (filter("pip", Some(p), true), 10),
                (filter("pip", None, false), 10),
                (filter("pip", Some(q), false), 1),
            ],
        )
        .await
        .unwrap();
    let many: Vec<Vec<MemoryId>> = many.iter().map(|hits| hits.iter().map(|h| h.id).collect()).collect();
    assert_eq!(many, vec![found.clone(), vec![], vec![q_closest.id]]);

    let mut f = filter("pip", Some(p), true);
    f.types = vec![MemoryType::GameContext];
    assert_eq!(ids(store, &query, f).await, vec![p_far.id]);

    let mut f = filter("pip", Some(p), true);
    f.exclude_ids = vec![lore.id];
    f.exclude_created_in_match_since = Some((m, Utc::now().timestamp() - 60));
    assert_eq!(ids(store, &query, f).await, vec![p_far.id]);
    // An excluded best hit leaves its place to the next, even at limit 1.
    let mut f = filter("pip", Some(p), true);
    let all = ids(store, &query, f.clone()).await;
    f.exclude_ids = vec![all[0]];
    let top: Vec<MemoryId> = store
        .search(query.clone(), f, 1)
        .await
        .unwrap()
        .iter()
        .map(|h| h.id)
        .collect();
    assert_eq!(top, vec![all[1]], "{all:?}");

    // Recent memories of another match stay.
    let other_match = point(
        unit(0, 1, 0.3),
        Some(p),
        "pip",
        MemoryType::Pattern,
        Some(MatchId::new()),
        10,
    );
    store.upsert(vec![other_match.clone()]).await.unwrap();
    let mut f = filter("pip", Some(p), false);
    f.exclude_created_in_match_since = Some((m, Utc::now().timestamp() - 60));
    assert_eq!(ids(store, &query, f).await, vec![other_match.id, p_far.id]);
    store.delete(vec![other_match.id]).await.unwrap();

    let mut f = filter("pip", Some(p), true);
    f.created_before = Some(Utc::now().timestamp() - 1000);
    assert_eq!(ids(store, &query, f).await, vec![p_far.id]);

    check_board_filter(store, p, &query).await;
    check_tag_filter(store, p, &query).await;
    check_word_search(store, p).await;

    // Never-recall: hidden from the subconscious, still found by the player's own review.
    store.set_recallable(vec![p_close.id], false).await.unwrap();
    assert_eq!(ids(store, &query, filter("pip", Some(p), false)).await, vec![p_far.id]);
    let mut own = filter("pip", Some(p), false);
    own.include_unrecallable = true;
    assert_eq!(ids(store, &query, own).await, vec![p_close.id, p_far.id]);
    store.set_recallable(vec![p_close.id], true).await.unwrap();

    store.delete(vec![p_far.id]).await.unwrap();
    assert_eq!(store.count().await.unwrap(), before + 4);
    Kept {
        query,
        player: p,
        expected: vec![p_close.id, lore.id],
    }
}

/// Memories made at a position or in an opening, found by the board alone.
pub async fn check_board_filter(store: &dyn VectorStore, p: PlayerId, query: &[f32]) {
    let at = |key: &str, eco: &str| IndexedMemory {
        position_key: Some(key.into()),
        eco: Some(eco.into()),
        ..point(unit(5, 6, 0.2), Some(p), "pip", MemoryType::PlayerBehavior, None, 10)
    };
    let (exact, same_opening, elsewhere) = (at("aa", "B20"), at("bb", "B20"), at("cc", "C50"));
    // A line of moves in its words that passes through "dd" on the way to "ee".
    let on_line = IndexedMemory {
        line: vec!["dd".into(), "ee".into()],
        ..point(unit(5, 6, 0.2), Some(p), "pip", MemoryType::PlayerBehavior, None, 10)
    };
    store
        .upsert(vec![
            exact.clone(),
            same_opening.clone(),
            elsewhere.clone(),
            on_line.clone(),
        ])
        .await
        .unwrap();
    let board = |key: Option<&str>, eco: Option<&str>| SearchFilter {
        board: Some(BoardFilter {
            position_key: key.map(String::from),
            eco: eco.map(String::from),
            line: key.map(String::from),
        }),
        ..filter("pip", Some(p), true)
    };
    assert_eq!(
        ids(store, query, board(Some("dd"), None)).await,
        vec![on_line.id],
        "on its line"
    );
    let mut found = ids(store, query, board(Some("aa"), Some("B20"))).await;
    found.sort();
    let mut expected = vec![exact.id, same_opening.id];
    expected.sort();
    assert_eq!(found, expected, "the position or the opening");
    assert_eq!(ids(store, query, board(Some("aa"), None)).await, vec![exact.id]);
    assert!(
        ids(store, query, board(None, None)).await.is_empty(),
        "an empty board matches nothing"
    );
    store
        .delete(vec![exact.id, same_opening.id, elsewhere.id, on_line.id])
        .await
        .unwrap();
}

/// BM25 over the memories' words, within the same filters.
pub async fn check_word_search(store: &dyn VectorStore, p: PlayerId) {
    use kibitz::memory::lexical::{document, query as words};
    let said = |text: &str, player: PlayerId| IndexedMemory {
        text: document(text),
        ..point(
            unit(9, 10, 0.3),
            Some(player),
            "pip",
            MemoryType::PlayerObservation,
            None,
            10,
        )
    };
    let other = PlayerId::new();
    let nurse = said("Ann told me: I work night shifts as a nurse", p);
    let tea = said("Ann prefers mint tea to coffee", p);
    let elsewhere = said("Bob works night shifts too", other);
    store
        .upsert(vec![nurse.clone(), tea.clone(), elsewhere.clone()])
        .await
        .unwrap();
    let mine = filter("pip", Some(p), true);
    let found = store
        .search_words(words("I just came off a long shift"), mine.clone(), 10)
        .await
        .unwrap();
    assert_eq!(
        found.iter().map(|h| h.id).collect::<Vec<_>>(),
        vec![nurse.id],
        "stemmed, and mine only"
    );
    assert!(found[0].score > 0.0);
    let none = store
        .search_words(words("Is it raining?"), mine.clone(), 10)
        .await
        .unwrap();
    assert!(none.is_empty(), "no shared word: {none:?}");
    assert!(
        store.search_words(words("the"), mine, 10).await.unwrap().is_empty(),
        "stop words only"
    );
    store.delete(vec![nurse.id, tea.id, elsewhere.id]).await.unwrap();
}

/// Memories naming any of the wanted concepts, whatever their vector.
pub async fn check_tag_filter(store: &dyn VectorStore, p: PlayerId, query: &[f32]) {
    let tagged = |tags: &[&str]| IndexedMemory {
        tags: tags.iter().map(|t| t.to_string()).collect(),
        ..point(unit(7, 8, 0.3), Some(p), "pip", MemoryType::Pattern, None, 10)
    };
    let (fork, pin_and_fork, endgame) = (tagged(&["fork"]), tagged(&["pin", "fork"]), tagged(&["rook_endgame"]));
    store
        .upsert(vec![fork.clone(), pin_and_fork.clone(), endgame.clone()])
        .await
        .unwrap();
    let by = |tags: &[&str]| SearchFilter {
        tags: tags.iter().map(|t| t.to_string()).collect(),
        ..filter("pip", Some(p), true)
    };
    let mut found = ids(store, query, by(&["fork", "skewer"])).await;
    found.sort();
    let mut expected = vec![fork.id, pin_and_fork.id];
    expected.sort();
    assert_eq!(found, expected, "any of the tags");
    assert_eq!(ids(store, query, by(&["rook_endgame"])).await, vec![endgame.id]);
    assert!(ids(store, query, by(&["mate"])).await.is_empty());
    store.delete(vec![fork.id, pin_and_fork.id, endgame.id]).await.unwrap();
}

pub async fn ids(store: &dyn VectorStore, query: &[f32], f: SearchFilter) -> Vec<MemoryId> {
    store
        .search(query.to_vec(), f, 10)
        .await
        .unwrap()
        .iter()
        .map(|h| h.id)
        .collect()
}
