//! A WebSocket's limits (issue 33): a frame is capped like a message, so a
//! peer cannot make the server wait for (or buffer) megabytes announced in a
//! frame header; a peer that stops answering pings is closed.

mod common;

use std::time::Duration;

use common::*;
use futures_util::StreamExt;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

/// Pings every half second in these tests (30 s by default).
const PING_SECS: &str = "0.5";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_stops_answering_pings_is_closed_and_a_live_one_is_kept() {
    let server = Server::start_with(&[("KIBITZ_WS_PING_SECS", PING_SECS)]).await;
    let player = server.new_player("Pia").await;
    let (m, _) = server.new_match(&player, "margot", "white").await;
    let token = server.token(&player);
    let mut silent = ws_connect_as(&server.ws_url(&m, 0), &token).await.unwrap();
    let mut live = ws_connect_as(&server.ws_url(&m, 0), &token).await.unwrap();
    assert!(
        ws_next(&mut silent, Duration::from_secs(5)).await.is_some(),
        "the state"
    );

    // The live peer reads (and so answers pings) while the silent one does not.
    let quiet_for = Duration::from_secs(3);
    let started = tokio::time::Instant::now();
    while started.elapsed() < quiet_for {
        let _ = tokio::time::timeout(Duration::from_millis(100), live.next()).await;
    }
    let mut closed = false;
    let mut pings = 0;
    while let Ok(Some(frame)) = tokio::time::timeout(Duration::from_secs(2), silent.next()).await {
        match frame {
            Ok(Message::Ping(_)) => pings += 1,
            Ok(Message::Close(_)) | Err(_) => {
                closed = true;
                break;
            }
            Ok(_) => {}
        }
    }
    assert!(closed, "the silent peer was not closed ({pings} pings seen)");
    assert_eq!(pings, 2, "closed after two unanswered pings");

    ws_send(&mut live, json!({ "type": "draw", "action": "bogus" })).await;
    let answer = ws_until(&mut live, Duration::from_secs(5), |f| f["type"] == "error").await;
    assert_eq!(
        answer.last().map(|f| f["data"]["code"].clone()),
        Some(json!("invalid_command")),
        "the live peer is still served: {answer:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_announcing_more_than_the_cap_is_refused_at_its_header() {
    let server = Server::start().await;
    let player = server.new_player("Fay").await;
    let (m, _) = server.new_match(&player, "margot", "white").await;
    let addr = server.ws_url(&m, 0).replace("ws://", "");
    let (host, path) = addr.split_once('/').unwrap();
    let mut tcp = tokio::net::TcpStream::connect(host).await.unwrap();
    let handshake = format!(
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Protocol: kibitz, bearer.{}\r\n\r\n",
        server.token(&player)
    );
    tcp.write_all(handshake.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        tcp.read_exact(&mut byte).await.unwrap();
        head.push(byte[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 101"), "{}", String::from_utf8_lossy(&head));

    // A masked text frame that says it holds 10 MiB, and 1 KiB of it.
    let mut frame = vec![0x81, 0x80 | 127];
    frame.extend_from_slice(&(10u64 << 20).to_be_bytes());
    frame.extend_from_slice(&[1, 2, 3, 4]);
    frame.extend(std::iter::repeat_n(b'a', 1024));
    tcp.write_all(&frame).await.unwrap();

    // The server gives up on it at once: the connection ends (after a close
    // frame, and whatever it had sent before), it does not wait for 10 MiB.
    let mut rest = Vec::new();
    let ended = tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut rest)).await;
    assert!(ended.is_ok(), "the server kept waiting for the announced 10 MiB");
}
