//! Between kibitz's index types and qdrant-edge's: points, filters, search
//! requests and hits.

use qdrant_edge::external::ordered_float::OrderedFloat;
use qdrant_edge::{
    Condition, FieldCondition, Filter, HasIdCondition, JsonPath, Match, NamedQuery, PointId, PointStruct, QueryEnum,
    Range, ScoredPoint, SearchParams, SearchRequest, SparseVector, Vector, VectorInternal, VectorStructInternal,
    Vectors, WithPayloadInterface, WithVector,
};

use super::super::lexical::{Sparse, TEXT_VECTOR};
use super::super::vector::{Hit, IndexedMemory, SearchFilter};
use crate::ids::MemoryId;

/// The one unnamed dense vector every point has.
pub(super) fn dense(vector: VectorStructInternal) -> Option<Vec<f32>> {
    match vector {
        VectorStructInternal::Single(v) => Some(v),
        VectorStructInternal::Named(mut named) => match named.remove("")? {
            VectorInternal::Dense(v) => Some(v),
            _ => None,
        },
        VectorStructInternal::MultiDense(_) => None,
    }
}

pub(super) fn key(field: &str) -> JsonPath {
    field.parse().expect("static payload key is a valid JSON path")
}

pub(super) fn keyword(field: &str, value: String) -> Condition {
    Condition::Field(FieldCondition::new_match(key(field), Match::from(value)))
}

pub(super) fn range(field: &str, gte: Option<i64>, lt: Option<i64>) -> Condition {
    let bound = |v: Option<i64>| v.map(|v| OrderedFloat(v as f64));
    Condition::Field(FieldCondition::new_range(
        key(field),
        Range {
            gte: bound(gte),
            lt: bound(lt),
            gt: None,
            lte: None,
        },
    ))
}

/// The request for one filtered search; None when the filter matches nothing.
pub(super) fn search_request(vector: &[f32], filter: &SearchFilter, limit: usize) -> Option<SearchRequest> {
    let query = NamedQuery {
        query: vector.to_vec().into(),
        using: None,
    };
    request(query, filter, limit)
}

/// The same by words; None also when the query has no term.
pub(super) fn words_request(words: Sparse, filter: &SearchFilter, limit: usize) -> Option<SearchRequest> {
    if words.is_empty() {
        return None;
    }
    let query = NamedQuery {
        query: VectorInternal::Sparse(SparseVector {
            indices: words.indices,
            values: words.values,
        }),
        using: Some(TEXT_VECTOR.to_string()),
    };
    request(query, filter, limit)
}

fn request(query: NamedQuery<VectorInternal>, filter: &SearchFilter, limit: usize) -> Option<SearchRequest> {
    // Qdrant reads an empty `should` as "no condition"; we mean "nothing".
    let no_owner = filter.player_id.is_none() && !filter.include_lore;
    let no_place = filter.board.as_ref().is_some_and(|b| b.is_empty());
    if no_owner || no_place || limit == 0 {
        return None;
    }
    Some(SearchRequest {
        query: QueryEnum::Nearest(query),
        filter: Some(to_filter(filter)),
        // Exact: every search is filtered to one player (+ lore), a small
        // set the payload index enumerates. Approximate search on an
        // optimised segment lost most filtered neighbours at 1M (recall 0.2).
        params: Some(SearchParams {
            exact: true,
            ..SearchParams::default()
        }),
        limit,
        offset: 0,
        with_payload: Some(WithPayloadInterface::Bool(false)),
        with_vector: Some(WithVector::Bool(false)),
        score_threshold: None,
    })
}

pub(super) fn hits(points: Vec<ScoredPoint>) -> Vec<Hit> {
    points
        .into_iter()
        .filter_map(|p| match p.id {
            PointId::Uuid(u) => Some(Hit {
                id: MemoryId(u),
                score: p.score,
            }),
            PointId::NumId(_) => None,
        })
        .collect()
}

pub(super) fn to_filter(f: &SearchFilter) -> Filter {
    let mut must: Vec<Condition> = f
        .persona_id
        .iter()
        .map(|p| keyword("persona_id", p.to_string()))
        .collect();
    let mut owners = Vec::new();
    if let Some(player) = f.player_id {
        owners.push(keyword("player_id", player.to_string()));
    }
    if f.include_lore {
        owners.push(Condition::Field(FieldCondition::new_match(
            key("lore"),
            Match::from(true),
        )));
    }
    // Only these owners; `search` returns nothing when there are none.
    must.push(Condition::Filter(Filter {
        should: Some(owners),
        ..Default::default()
    }));
    if !f.types.is_empty() {
        let types: Vec<String> = f.types.iter().map(|t| t.as_str().to_string()).collect();
        must.push(Condition::Field(FieldCondition::new_match(
            key("memory_type"),
            Match::from(types),
        )));
    }
    if !f.tags.is_empty() {
        must.push(Condition::Field(FieldCondition::new_match(
            key("tags"),
            Match::from(f.tags.clone()),
        )));
    }
    if let Some(board) = &f.board {
        let places: Vec<Condition> = board.places().into_iter().map(|(field, v)| keyword(field, v)).collect();
        must.push(Condition::Filter(Filter {
            should: Some(places),
            ..Default::default()
        }));
    }
    if f.created_after.is_some() || f.created_before.is_some() {
        must.push(range("created_at", f.created_after, f.created_before));
    }
    let mut must_not = Vec::new();
    if !f.include_unrecallable {
        // Points indexed before the flag existed lack it and stay recallable.
        must_not.push(Condition::Field(FieldCondition::new_match(
            key("recallable"),
            Match::from(false),
        )));
    }
    if !f.exclude_ids.is_empty() {
        let ids: HasIdCondition = f.exclude_ids.iter().map(|id| PointId::Uuid(id.0)).collect();
        must_not.push(Condition::HasId(ids));
    }
    if let Some((match_id, since)) = f.exclude_created_in_match_since {
        must_not.push(Condition::Filter(Filter {
            must: Some(vec![
                keyword("match_id", match_id.to_string()),
                range("created_at", Some(since), None),
            ]),
            ..Default::default()
        }));
    }
    Filter {
        must: Some(must),
        must_not: Some(must_not),
        ..Default::default()
    }
}

/// A point: its meaning as the unnamed dense vector, its words (if any
/// survive the stop words) as the sparse one.
pub(super) fn to_point(m: IndexedMemory) -> qdrant_edge::PointStructPersisted {
    let payload = m.payload();
    let mut vectors = vec![(
        qdrant_edge::DEFAULT_VECTOR_NAME.to_string(),
        Vector::new_dense(m.vector),
    )];
    if !m.text.is_empty()
        && let Ok(text) = Vector::new_sparse(m.text.indices, m.text.values)
    {
        vectors.push((TEXT_VECTOR.to_string(), text));
    }
    PointStruct::new(PointId::Uuid(m.id.0), Vectors::new_named(vectors), payload).into()
}
