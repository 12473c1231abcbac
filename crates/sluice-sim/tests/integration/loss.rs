//! Loss models on a link: scripted losses hit exactly the packets named, are counted apart from
//! queue drops, and TCP recovers from them the way the RFCs say.

use sluice_sim::{run_str, RunOptions, Summary};

/// One bulk NewReno flow over a 10 Mb/s, 10 ms bottleneck with `loss` on A->B; no warm-up, so
/// every counter covers the whole run.
fn one_flow(loss: &str, duration: &str) -> Summary {
    let text = format!(
        r#"
name = "loss"
duration = "{duration}"
seed = 1
[topology]
kind = "dumbbell"
pairs = 1
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = {{ rate = "10Mbps", delay = "10ms", loss = {loss} }}
queue = {{ kind = "drop_tail", limit = "1000pkt" }}
[[flows]]
count = 1
src = "senders"
dst = "receivers"
app = {{ kind = "bulk" }}
start = "0s"
"#
    );
    run_str(&text, None, &RunOptions::default()).expect("runs").summary
}

fn queue<'a>(s: &'a Summary, name: &str) -> &'a sluice_sim::monitor::summary::QueueSummary {
    s.queues.iter().find(|q| q.name == name).expect("queue reported")
}

#[test]
fn a_listed_data_packet_is_lost_once_and_fast_retransmitted() {
    // The 12th data segment (slow start, initial window 10) is lost on the wire: the later
    // segments of the flight bring duplicate ACKs, the third triggers one fast retransmission.
    let s = one_flow(r#"{ kind = "list", packets = [12], match = "data" }"#, "2s");
    let (q, f) = (queue(&s, "A->B"), &s.flows[0]);
    assert_eq!(q.link_losses, 1);
    assert_eq!(q.dropped, 0, "a link loss is not a queue drop");
    assert_eq!(f.lost_packets, 1);
    assert_eq!(f.fast_retransmits, 1);
    assert_eq!(f.rto_count, 0);
    assert_eq!(f.retransmitted_bytes, 1448);
    assert_eq!((f.recovery_episodes, f.timeout_episodes), (1, 0));
    assert_eq!(q.link_loss_model, "list match=data packets=[12]");
    assert_eq!(queue(&s, "B->A").link_losses, 0);
}

#[test]
fn a_lost_syn_costs_the_initial_rto() {
    // The first packet crossing A->B is the SYN. RFC 6298 §2.1: the initial RTO is 1 s, so the
    // SYN goes again at t = 1 s and data starts one second late. Against the same run without
    // loss the flow delivers about 1 s x 10 Mb/s less (allow a few segments either way).
    let lossless = one_flow("0.0", "3s");
    let s = one_flow(r#"{ kind = "list", packets = [1] }"#, "3s");
    assert_eq!(queue(&s, "A->B").link_losses, 1);
    assert_eq!(s.flows[0].retransmitted_bytes, 0, "a SYN carries no payload");
    // The handshake's timeout is not a Loss episode (ns-3 retransmits a SYN without entering
    // CA_LOSS) nor an RTO of the data sender.
    assert_eq!((s.flows[0].timeout_episodes, s.flows[0].rto_count), (0, 0));
    let lost = lossless.flows[0].bytes_delivered - s.flows[0].bytes_delivered;
    let second = 10_000_000 / 8 * 1448 / 1500;
    assert!(lost.abs_diff(second as u64) < 20 * 1448, "lost {lost} B, about {second} expected");
}

#[test]
fn bernoulli_loss_counts_match_the_flow_and_the_rate() {
    let s = one_flow("0.02", "20s");
    let q = queue(&s, "A->B");
    assert_eq!(q.link_losses, s.flows[0].lost_packets, "only this flow crosses A->B lossy");
    // About 2 % of what crossed (data and pure ACKs of the handshake): dequeued counts them all.
    let rate = q.link_losses as f64 / q.dequeued as f64;
    assert!((0.015..0.025).contains(&rate), "realised loss rate {rate}");
    assert_eq!(q.link_loss_model, "bernoulli p=0.02");
    assert_eq!(queue(&s, "B->A").link_loss_model, "none");
}

#[test]
fn gilbert_elliott_loss_runs_end_to_end() {
    // Stationary loss rate p_gb / (p_gb + p_bg) = 1.6 %, in bursts of 1 / p_bg = 3.3 packets
    // on average (the rate and burst formulas are checked in sluice-core's loss tests). Bursts
    // cost timeouts, so the flow is slow, but it keeps going.
    let s = one_flow(r#"{ kind = "gilbert_elliott", p_gb = 0.005, p_bg = 0.3 }"#, "20s");
    let (q, f) = (queue(&s, "A->B"), &s.flows[0]);
    assert_eq!(q.link_losses, f.lost_packets);
    let rate = q.link_losses as f64 / q.dequeued as f64;
    assert!((0.005..0.04).contains(&rate), "realised loss rate {rate}");
    assert!(f.goodput_bps > 1e5 && f.tcp_state.as_deref() == Some("established"), "{f:?}");
}

#[test]
fn a_lost_flight_takes_a_timeout_and_a_lost_retransmission_a_second_one_in_the_same_episode() {
    let lose = |first: u64, last: u64| {
        let list: Vec<String> = (first..=last).map(|n| n.to_string()).collect();
        one_flow(&format!(r#"{{ kind = "list", packets = [{}], match = "data" }}"#, list.join(", ")), "6s")
    };
    // Data segments 12-27 are lost. By hand: the initial window sends 1-10; ACKs of every
    // second segment (2, 4, .., 10) each grow cwnd by one segment in slow start (RFC 5681
    // §3.1) and release three: 11-25; the delayed ACK of 11 releases 26 and 27. So 12-27 is
    // the whole flight: no duplicate ACK comes back and the RTO (1 s floor) fires: one
    // timeout, one episode, no fast recovery. The retransmission (the 28th data segment)
    // arrives.
    let s = lose(12, 27);
    let f = &s.flows[0];
    assert_eq!((queue(&s, "A->B").link_losses, f.lost_packets), (16, 16));
    assert_eq!((f.rto_count, f.timeout_episodes, f.recovery_episodes), (1, 1, 0), "{f:?}");
    // Now the retransmission is lost too: the timer fires again, backed off (RFC 6298 §5.5),
    // within the same Loss episode.
    let s = lose(12, 28);
    let f = &s.flows[0];
    assert_eq!((f.rto_count, f.timeout_episodes, f.recovery_episodes), (2, 1, 0), "{f:?}");
}
