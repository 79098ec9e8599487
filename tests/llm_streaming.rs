//! The persona's words as the model writes them: a real llama-server
//! streams a completion whose pieces add up to the whole and whose repeated
//! prompt prefix comes back cached; through a match, a model's streamed
//! answer reaches the WebSocket as passing `draft` events that grow into the
//! checked message (a fake server paces the pieces so the growth is seen).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::fake_llm::{Behaviour, FakeLlm};
use common::llama::LlamaServer;
use common::*;
use futures_util::{SinkExt, StreamExt};
use kibitz::llm::{ChatModel, ChatRequest, Message, OpenAiModel, TextSink};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message as Frame;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_server_streams_pieces_and_reuses_the_cached_prefix() {
    let llama = LlamaServer::start().await;
    let model = OpenAiModel::new(&llama.url, "smollm2", None, Duration::from_secs(60));
    // A long, stable system message, as the persona card and rules are.
    let card = "You are Viktor, a sharp club player who likes gambits. ".repeat(20);
    let ask = |line: &str| {
        let mut req = ChatRequest::new(vec![Message::system(card.clone()), Message::user(line)], 0.0, 24);
        let pieces = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = pieces.clone();
        req.stream = Some(TextSink::new(move |p| sink.lock().unwrap().push(p.to_string())));
        (req, pieces)
    };
    let (first, pieces) = ask("Say hello.");
    let reply = model.chat(&first).await.expect("the streamed call answers");
    let pieces = pieces.lock().unwrap().clone();
    assert!(pieces.len() > 1, "the text came in pieces: {pieces:?}");
    assert_eq!(pieces.concat(), reply.content, "the pieces add up to the reply");
    assert!(
        reply.usage.prompt_tokens > 0 && reply.usage.completion_tokens > 0,
        "{:?}",
        reply.usage
    );

    let (second, _) = ask("Say goodbye.");
    let again = model.chat(&second).await.expect("the second call answers");
    assert!(
        again.usage.cached_tokens * 2 > again.usage.prompt_tokens,
        "most of the prompt (the card) came from the server's cache: {:?}",
        again.usage
    );
}

/// Frames of the socket until the persona says something, at most 10 s.
async fn frames_until_persona_speaks(ws: &mut Ws) -> Vec<Value> {
    let mut frames = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while let Ok(Some(Ok(frame))) = tokio::time::timeout_at(deadline, ws.next()).await {
        let Frame::Text(text) = frame else { continue };
        let frame: Value = serde_json::from_str(&text).unwrap();
        let said = frame["type"] == "message" && frame["data"]["sender"] == "persona";
        frames.push(frame);
        if said {
            break;
        }
    }
    frames
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_message_grows_on_the_websocket_as_the_model_writes_it() {
    let said = "Bees on the roof? Mind they do not sting your rooks, Pat.";
    let answer = json!({"thinking": "tease", "actions": [
        {"action": "send_message", "content": said, "tone": "playful"}, {"action": "stop"}]});
    let fake = FakeLlm::openai(vec![Behaviour::Streamed {
        answer: answer.to_string(),
        every: Duration::from_millis(15),
    }])
    .await;
    let server = Server::start_with(&[("KIBITZ_LLM_URL", &fake.url)]).await;
    let pat = server.new_player("Pat").await;
    let (m, _) = server.new_match(&pat, "viktor", "white").await;
    // The greeting (streamed too) is said first.
    assert_eq!(persona_words_after(&server, &m, 0, 10).await, [said]);
    let last = server.events(&m).await.last().map_or(0, |e| e["seq"].as_i64().unwrap());
    let mut ws = server.ws(&m, last).await;
    ws.send(Frame::text(
        json!({"type": "chat", "text": "I keep bees on my roof"}).to_string(),
    ))
    .await
    .unwrap();
    let frames = frames_until_persona_speaks(&mut ws).await;

    let drafts: Vec<&str> = frames
        .iter()
        .filter(|f| f["type"] == "draft" && f["data"]["trigger"] == "on_user_input")
        .filter_map(|f| f["data"]["text"].as_str())
        .collect();
    assert!(
        drafts.len() >= 5,
        "the words grew piece by piece: {drafts:?} in {frames:?}"
    );
    for pair in drafts.windows(2) {
        assert!(
            pair[1].starts_with(pair[0]) && pair[1].len() > pair[0].len(),
            "{pair:?}"
        );
    }
    assert_eq!(drafts.last().copied(), Some(said), "the draft ends as the words");
    assert!(
        frames.iter().filter(|f| f["type"] == "draft").all(|f| f["seq"] == 0),
        "drafts are passing, never numbered"
    );
    let message = frames.last().unwrap();
    assert_eq!(message["data"]["content"], said, "{frames:?}");
    assert!(message["seq"].as_i64().unwrap() > last);
    // Drafts are never stored: the history has the message only.
    let stored = server.events(&m).await;
    assert!(stored.iter().all(|e| e["type"] != "draft"), "{stored:?}");
    assert!(fake.calls.bodies.lock().unwrap().iter().any(|b| b["stream"] == true));
}
