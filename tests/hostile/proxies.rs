//! Who the client is: from an untrusted peer, `X-Forwarded-For` changes
//! nothing; behind a trusted proxy (the shipped nginx), each client has a
//! budget of its own, whatever it writes in the header itself.

use std::net::IpAddr;

use super::common::club::Nginx;
use super::common::{Server, free_port};
use super::raw;

fn ip(s: &str) -> Option<IpAddr> {
    Some(s.parse().unwrap())
}

/// Statuses of `n` GETs of /api/health from `from` through `port`, each
/// with `forwarded` as its X-Forwarded-For when given.
async fn health(port: u16, from: Option<IpAddr>, n: usize, forwarded: Option<&str>) -> Vec<u16> {
    let mut statuses = Vec::new();
    for i in 0..n {
        let spoof = forwarded.map(|f| f.replace("{i}", &i.to_string()));
        let headers: Vec<(&str, &str)> = spoof.iter().map(|f| ("X-Forwarded-For", f.as_str())).collect();
        statuses.push(raw::send(port, from, "GET", "/api/health", &headers, "").await.status);
    }
    statuses
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forwarded_for_from_an_untrusted_peer_picks_no_bucket() {
    let server = Server::start_with(&[("KIBITZ_REQUESTS_PER_MINUTE_PER_ADDRESS", "5")]).await;
    let statuses = health(server.port, ip("127.0.0.2"), 7, Some("198.51.100.{i}")).await;
    assert_eq!(statuses, [200, 200, 200, 200, 200, 429, 429], "one bucket, the peer's");
    let other = health(server.port, ip("127.0.0.3"), 1, None).await;
    assert_eq!(other, [200], "another address has its own");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_client_has_its_own_budget() {
    let server = Server::start_with(&[
        ("KIBITZ_REQUESTS_PER_MINUTE_PER_ADDRESS", "5"),
        ("KIBITZ_TRUSTED_PROXIES", "127.0.0.1"),
    ])
    .await;
    // The proxy's word, rightmost first: the client wrote 6.6.6.6, the proxy
    // appended the address it was reached from.
    let one = health(server.port, ip("127.0.0.1"), 6, Some("6.6.6.{i}, 198.51.100.1")).await;
    assert_eq!(one, [200, 200, 200, 200, 200, 429]);
    let two = health(server.port, ip("127.0.0.1"), 1, Some("198.51.100.2")).await;
    assert_eq!(two, [200], "another client behind the same proxy");
    // IPv6 clients count by their /64.
    let v6 = health(server.port, ip("127.0.0.1"), 6, Some("2001:db8:7:7::{i}")).await;
    assert_eq!(v6, [200, 200, 200, 200, 200, 429], "a /64 is one client");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_behind_the_shipped_nginx_keep_separate_budgets() {
    let Some(bin) = std::env::var("KIBITZ_TEST_NGINX").ok().filter(|b| !b.is_empty()) else {
        eprintln!("skipped: set KIBITZ_TEST_NGINX to nginx's path (make test installs nginx-light)");
        return;
    };
    let server = Server::start_with(&[
        ("KIBITZ_REQUESTS_PER_MINUTE_PER_ADDRESS", "5"),
        ("KIBITZ_REGISTRATIONS_PER_HOUR", "2"),
        ("KIBITZ_TRUSTED_PROXIES", "127.0.0.1"),
    ])
    .await;
    let port = free_port();
    let _nginx = Nginx::start(&bin, port, &[&server]);
    let up = super::common::eventually(50, || async {
        raw::listening(port).await && health(port, None, 1, None).await == [200]
    })
    .await;
    assert!(up, "nginx answers");
    // 127.0.0.1 spent one token of its own; the clients below are others.
    let ann = health(port, ip("127.0.0.2"), 6, Some("203.0.113.{i}")).await;
    assert_eq!(
        ann,
        [200, 200, 200, 200, 200, 429],
        "the spoofed header changed nothing"
    );
    let bob = health(port, ip("127.0.0.3"), 5, None).await;
    assert_eq!(bob, [200; 5], "a second client behind nginx is not the first");
    // Registrations are per client too (2 an hour here).
    let register = |from: &'static str, name: &'static str| async move {
        let body = format!(r#"{{"name":"{name}"}}"#);
        raw::send(port, ip(from), "POST", "/api/players", &[], &body)
            .await
            .status
    };
    assert_eq!(register("127.0.0.4", "Cy").await, 201);
    assert_eq!(register("127.0.0.4", "Di").await, 201);
    assert_eq!(register("127.0.0.4", "Ed").await, 429);
    assert_eq!(register("127.0.0.5", "Flo").await, 201, "another client may still join");
    // The balancer refuses the nodes' own route, in any spelling.
    let internal = raw::send(port, ip("127.0.0.5"), "POST", "/internal/forget", &[], "{}").await;
    assert_eq!(internal.status, 404);
}
