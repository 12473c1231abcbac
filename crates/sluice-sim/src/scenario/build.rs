//! Validation across fields, and building the resolved [`Model`].

use super::error::ScenarioError;
use super::schema::*;
use crate::model::*;
use crate::tcp::*;
use sluice_core::loss::{ListMatch, LossModel};
use sluice_core::qdisc::{DropTailConfig, Profile as QdiscProfile, QdiscConfig};
use sluice_core::units::QueueLimit;
use sluice_core::{Dur, Time};

type R<T> = Result<T, ScenarioError>;

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(path, msg))
}

/// Apply a `[tcp]` table on top of `base`: its profile (`validate`) replaces `base`, then its
/// preset, then its own keys.
fn apply_tcp(base: &TcpConfig, t: &TcpTable, path: &str) -> R<TcpConfig> {
    let mut c = match t.validate {
        Some(Profile::Ns3_44) => TcpConfig::ns3_44(),
        Some(Profile::Sluice) => TcpConfig::default(),
        None => base.clone(),
    };
    // The preset's values, then this table's own keys over them.
    match t.tcp_preset {
        Some(Preset::Ns3_30) => c.apply_ns3_30(),
        Some(Preset::Ns3_13) => c.apply_ns3_13(),
        None => {}
    }
    if let Some(v) = t.cc {
        c.cc = v;
    }
    // docs/algorithms/: each algorithm's table, over what the profile and the tables before
    // gave; checked whole once set.
    if let Some(x) = &t.cubic {
        let k = &mut c.cubic;
        macro_rules! take { ($($f:ident),*) => { $( if let Some(v) = x.$f { k.$f = v; } )* } }
        take!(c, beta, fast_convergence, tcp_friendliness, hystart);
        if let Err((key, msg)) = k.validate() {
            return err(format!("{path}.cubic.{key}"), msg);
        }
    }
    if let Some(x) = &t.vegas {
        let k = &mut c.vegas;
        macro_rules! take { ($($f:ident),*) => { $( if let Some(v) = x.$f { k.$f = v; } )* } }
        take!(alpha, beta, gamma, diff);
        if let Err((key, msg)) = k.validate() {
            return err(format!("{path}.vegas.{key}"), msg);
        }
    }
    if let Some(x) = &t.compound {
        let k = &mut c.compound;
        macro_rules! take { ($($f:ident),*) => { $( if let Some(v) = x.$f { k.$f = v; } )* } }
        take!(variant, alpha, beta, k, gamma, eta, gamma_tuning);
        if let Err((key, msg)) = k.validate() {
            return err(format!("{path}.compound.{key}"), msg);
        }
    }
    if let Some(x) = &t.bbr {
        let k = &mut c.bbr;
        macro_rules! take { ($($f:ident),*) => { $( if let Some(v) = x.$f { k.$f = v; } )* } }
        take!(target, cycle_start, cycle_stream, high_gain, pacing_margin);
        if let Some(v) = &x.cycle_draws {
            k.cycle_draws = v.clone();
        }
        if let Err((key, msg)) = k.validate() {
            return err(format!("{path}.bbr.{key}"), msg);
        }
    }
    if let Some(x) = &t.ngwa {
        // Giving the table turns NGWA on unless it says `enabled = false`.
        let k = &mut c.ngwa;
        k.enabled = x.enabled.unwrap_or(true);
        macro_rules! take { ($($f:ident),*) => { $( if let Some(v) = x.$f { k.$f = v; } )* } }
        take!(alpha, smoothing, smooth_at, allow_shrink, floor, opt_len);
        if let Err((key, msg)) = k.validate() {
            return err(format!("{path}.ngwa.{key}"), msg);
        }
    }
    if let Some(v) = t.mss {
        if !(64..=65_495).contains(&v) {
            return err(format!("{path}.mss"), format!("must be between 64 and 65495 bytes, got {v}"));
        }
        c.mss = v;
    }
    macro_rules! set { ($($f:ident),*) => { $( if let Some(v) = t.$f { c.$f = v; } )* } }
    set!(sack, timestamps, window_scaling, ecn, limited_transmit, nagle, min_rto, max_rto, initial_rto);
    if let Some(v) = t.snd_buf {
        c.snd_buf = v.0;
    }
    if let Some(v) = t.rcv_buf {
        if v.0 < 1 {
            return err(format!("{path}.rcv_buf"), "must be positive");
        }
        c.rcv_buf = v.0;
    }
    // docs/tcp.md, "initial window": `iw` names a formula; an explicit `initial_cwnd` in the same
    // table wins over it. Either one, given in a flow's table, replaces whatever the flow
    // inherited.
    if let Some(v) = t.iw {
        c.iw = match v {
            IwOpt::Rfc6928 => InitialWindow::Rfc6928,
            IwOpt::Rfc3390 => InitialWindow::Rfc3390,
            IwOpt::Rfc5681 => InitialWindow::Rfc5681,
        };
    }
    if let Some(v) = t.initial_cwnd {
        if v == 0 {
            return err(format!("{path}.initial_cwnd"), "must be at least 1 segment");
        }
        c.iw = InitialWindow::Segments(v);
    }
    // docs/tcp.md, `rto`: the estimator brings its own RTO bounds unless this table gives them.
    if let Some(v) = t.rto {
        c.rto = match v {
            RtoOpt::Rfc6298 => RtoEstimator::Rfc6298,
            RtoOpt::Linux => RtoEstimator::Linux,
            RtoOpt::Ns3Legacy => RtoEstimator::Ns3Legacy,
            RtoOpt::Rfc793 => RtoEstimator::Rfc793,
        };
        let (min, max) = c.rto.bounds();
        if t.min_rto.is_none() {
            c.min_rto = min;
        }
        if t.max_rto.is_none() {
            c.max_rto = max;
        }
    }
    if let Some(v) = t.dupthresh {
        if v == 0 {
            return err(format!("{path}.dupthresh"), "must be at least 1");
        }
        c.dupthresh = v;
    }
    if let Some(v) = t.syn_retries {
        c.syn_retries = v;
    }
    if let Some(v) = t.data_retries {
        c.data_retries = Some(v);
    }
    let (mut count, mut timeout) = match c.delack {
        DelAck::On { count, timeout } => (count, timeout),
        DelAck::Off | DelAck::Linux => (2, Dur::from_millis(200)),
    };
    if let Some(v) = t.delack_count {
        if v == 0 {
            return err(format!("{path}.delack_count"), "must be at least 1");
        }
        count = v;
    }
    if let Some(v) = t.delack_timeout {
        if v >= Dur::from_millis(500) {
            return err(format!("{path}.delack_timeout"), "must be below 500ms (RFC 1122 §4.2.3.2)");
        }
        timeout = v;
    }
    c.delack = match t.delack {
        Some(DelAckOpt::Off) => DelAck::Off,
        Some(DelAckOpt::Linux) => {
            // Linux's ATO and quick-ACK rules replace both knobs.
            for (key, given) in [("delack_count", t.delack_count.is_some()), ("delack_timeout", t.delack_timeout.is_some())] {
                if given {
                    return err(format!("{path}.{key}"), "applies only to delack = \"on\" (delack = \"linux\" sets its own timeouts)");
                }
            }
            DelAck::Linux
        }
        _ if matches!(c.delack, DelAck::Off) && t.delack.is_none() && t.delack_count.is_none() => DelAck::Off,
        _ if matches!(c.delack, DelAck::Linux) && t.delack.is_none() && t.delack_count.is_none() && t.delack_timeout.is_none() => DelAck::Linux,
        _ => DelAck::On { count, timeout },
    };
    let prr = match t.prr {
        Some(PrrOpt::Rfc6937) => PrrVariant::Rfc6937,
        Some(PrrOpt::Rfc9937) => PrrVariant::Rfc9937,
        None => match c.recovery {
            Recovery::Prr(v) => v,
            Recovery::Classic => PrrVariant::Rfc9937,
        },
    };
    c.recovery = match t.recovery {
        Some(RecoveryOpt::Classic) => Recovery::Classic,
        Some(RecoveryOpt::Prr) => Recovery::Prr(prr),
        None => match c.recovery {
            Recovery::Prr(_) => Recovery::Prr(prr),
            r => r,
        },
    };
    if let Some(v) = t.dupack {
        c.dupack = match v {
            DupAckOpt::Default => DupAckRule::Default,
            DupAckOpt::Strict => DupAckRule::Strict,
            DupAckOpt::Ns3 => DupAckRule::Ns3,
            DupAckOpt::Linux => DupAckRule::Linux,
        };
    }
    if let Some(v) = t.wnd_update {
        c.wnd_update = match v {
            WndUpdateOpt::Rfc9293 => WndUpdateRule::Rfc9293,
            WndUpdateOpt::Ns3 => WndUpdateRule::Ns3,
            WndUpdateOpt::Linux => WndUpdateRule::Linux,
            WndUpdateOpt::Always => WndUpdateRule::Always,
        };
    }
    if let Some(v) = t.syn_rto {
        c.syn_rto = if v == SynRtoOpt::Ns3 { SynRto::Ns3 } else { SynRto::Rfc6298 };
    }
    if let Some(v) = t.newreno_full_ack {
        c.full_ack = if v == FullAckOpt::FlightSize { FullAck::FlightSize } else { FullAck::Ssthresh };
    }
    if let Some(v) = t.pacing {
        c.pacing = match v {
            PacingOpt::Off => Pacing::Off,
            PacingOpt::Cc => Pacing::Cc,
            PacingOpt::Linux => Pacing::Linux,
        };
    }
    if let Some(v) = t.ecn_cut {
        c.ecn_cut = if v == EcnCutOpt::Immediate { EcnCut::Immediate } else { EcnCut::Prr };
    }
    if c.min_rto > c.max_rto {
        return err(format!("{path}.min_rto"), format!("must not exceed max_rto ({})", c.max_rto));
    }
    acns_tcp(&mut c, t, path)?;
    // A full-sized data segment must fit an IPv4 packet: 20 B IP + 20 B TCP + options + MSS.
    let max_mss = 65_535 - 40 - if c.timestamps { 12 } else { 0 };
    if c.mss > max_mss {
        let why = if c.timestamps { " with timestamps on (12 option bytes per segment)" } else { "" };
        return err(format!("{path}.mss"), format!("must be at most {max_mss} bytes{why}, so that a segment fits the 65535-byte IPv4 packet; got {}", c.mss));
    }
    // The sender waits for room for a full segment (as ns-3 does), so a smaller receive window
    // would let data through only as one-byte probes every few seconds.
    if c.rcv_buf < c.mss as u64 {
        let key = if t.mss.is_some() && t.rcv_buf.is_none() { "mss" } else { "rcv_buf" };
        return err(format!("{path}.{key}"), format!("the receive buffer ({} B) must hold at least one full segment (mss = {} B)", c.rcv_buf, c.mss));
    }
    // The send buffer holds what the application has written and the sender has not yet had
    // acknowledged: one too small for a segment would let the flow send nothing, or only
    // short segments, without a word (`snd_buf = "0B"` sent nothing at all).
    if c.snd_buf < c.mss as u64 {
        let key = if t.mss.is_some() && t.snd_buf.is_none() { "mss" } else { "snd_buf" };
        return err(format!("{path}.{key}"), format!("the send buffer ({} B) must hold at least one full segment (mss = {} B)", c.snd_buf, c.mss));
    }
    Ok(c)
}

/// `[tcp.acns]` (docs/tcp.md, "ACNS endpoint") over what the tables before gave. ACNS runs in ECN
/// mode, so it turns `ecn` on (an explicit `ecn = false` beside it is refused), and it needs a
/// congestion window it can hold (not `cc = "none"` or `"bbr"`).
fn acns_tcp(c: &mut TcpConfig, t: &TcpTable, path: &str) -> R<()> {
    if let Some(x) = &t.acns {
        let k = &mut c.acns;
        macro_rules! take { ($($f:ident),*) => { $( if let Some(v) = x.$f { k.$f = v; } )* } }
        take!(enabled, echo, hist, hist_len, trend_on_rto, w_count, sigma, th_l1, th_l2, cmt_mask);
        if let Err((key, msg)) = k.validate() {
            return err(format!("{path}.acns.{key}"), msg);
        }
    }
    if !c.acns.enabled {
        return Ok(());
    }
    if t.ecn == Some(false) {
        return err(format!("{path}.ecn"), "must be true with acns.enabled (ACNS runs in ECN mode)");
    }
    c.ecn = true;
    if matches!(c.cc, CcKind::None | CcKind::Bbr) {
        let key = if t.acns.is_some() { "acns.enabled" } else { "cc" };
        return err(format!("{path}.{key}"), format!("ACNS holds and sets back a congestion window: not with cc = \"{}\"", c.cc.as_str()));
    }
    Ok(())
}

/// A flow's TCP configuration: the scenario's profile and preset unless the flow names its own,
/// then the `[tcp]` keys, then the flow's keys. A flow's table overrides only the keys it gives,
/// `validate` and `tcp_preset` included.
fn flow_tcp(global: &TcpTable, own: &TcpTable, path: &str) -> R<TcpConfig> {
    let merged = TcpTable { validate: own.validate.or(global.validate), tcp_preset: own.tcp_preset.or(global.tcp_preset), ..global.clone() };
    let base = apply_tcp(&TcpConfig::default(), &merged, "tcp")?;
    apply_tcp(&base, &TcpTable { validate: None, tcp_preset: None, ..own.clone() }, path)
}

/// A link rate: zero would make the link infinitely fast, so it is refused.
fn check_rate(r: sluice_core::Rate, path: &str) -> R<sluice_core::Rate> {
    if r.0 == 0 {
        return err(path, "must be at least 1bps (a rate rounding to 0 bit/s is refused)");
    }
    Ok(r)
}

/// Node names make queue names (`"A->B"`) and pcap file names (`A-to-B.pcap`), so they are
/// kept to characters that are safe in both.
fn check_node_name(name: &str, path: &str) -> R<()> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    let first_ok = name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    if name.len() > 64 || !first_ok || !name.chars().all(ok_char) || name.contains("->") {
        return err(path, format!("{name:?}: a node name is 1-64 letters, digits, '_', '-' and '.', starting with a letter, digit or '_', without \"->\" (it names queues \"A->B\" and pcap files)"));
    }
    Ok(())
}

/// Link-layer bytes per packet: PPP's 2, Ethernet's 38 with preamble and gap, tunnels more.
fn check_l2(v: Option<u32>, path: &str) -> R<u32> {
    const MAX: u32 = 256;
    match v {
        Some(n) if n > MAX => err(path, format!("at most {MAX} bytes per packet, got {n}")),
        Some(n) => Ok(n),
        None => Ok(2),
    }
}

/// A queue table (`{ kind = "codel", target = "5ms" }`): keys left out take the discipline's
/// defaults under `profile`; errors name the key (`topology.queue.max_th`).
pub(crate) fn qspec(q: &QueueTable, path: &str, profile: QdiscProfile) -> R<QdiscConfig> {
    Ok(sluice_core::tables::qdisc(q, path, profile)?)
}

fn check_device(n: u32, path: &str) -> R<()> {
    let max = crate::net::Iface::DEVICE_MAX as u32;
    if n > max {
        return err(path, format!("at most {max} packets (the queue discipline holds the backlog), got {n}"));
    }
    Ok(())
}

/// A link direction's loss model: a bare probability is Bernoulli loss (`loss = 0.02`), a table
/// names its model (`{ kind = "gilbert_elliott", ... }`). Absent: no loss.
fn loss_model(v: Option<&LossValue>, path: &str) -> R<LossModel> {
    let model = match v {
        None => return Ok(LossModel::NONE),
        Some(toml::Value::Float(p)) => {
            if !(0.0..1.0).contains(p) {
                return err(path, format!("must be a probability in [0, 1), got {p}"));
            }
            return Ok(LossModel::Bernoulli { p: *p });
        }
        Some(toml::Value::Integer(0)) => return Ok(LossModel::NONE),
        Some(toml::Value::Integer(n)) => return err(path, format!("must be a probability in [0, 1), got {n}")),
        Some(t) => {
            let (kind, rest) = super::kind_of(t, path, LOSS_KINDS)?;
            match kind.as_str() {
                "bernoulli" => {
                    let BernoulliTable { p } = super::typed(rest, path)?;
                    LossModel::Bernoulli { p }
                }
                "gilbert_elliott" => {
                    let GilbertElliottTable { p_gb, p_bg, loss_good, loss_bad } = super::typed(rest, path)?;
                    LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad }
                }
                _ => {
                    debug_assert_eq!(kind, "list", "kind_of admits only LOSS_KINDS");
                    let ListLossTable { packets, matching } = super::typed(rest, path)?;
                    if packets.iter().any(|&n| n < 1) {
                        return err(format!("{path}.packets"), "must be ascending positive integers (the n-th packet, counting from 1)");
                    }
                    let matching = match matching {
                        Some(ListMatchOpt::Data) => ListMatch::Data,
                        Some(ListMatchOpt::All) | None => ListMatch::All,
                    };
                    LossModel::List { packets: packets.into_iter().map(|n| n as u64).collect(), matching }
                }
            }
        }
    };
    model.validate().map_err(|e| ScenarioError::new(format!("{path}.{}", e.field), e.message))?;
    Ok(model)
}

struct Net {
    nodes: Vec<NodeSpec>,
    links: Vec<LinkSpec>,
    groups: Vec<(String, Vec<usize>)>,
    /// Queues reported by default (None: every router egress queue).
    core_queues: Option<Vec<String>>,
}

#[allow(clippy::too_many_arguments)]
fn link(a: usize, b: usize, names: &[NodeSpec], rate: sluice_core::Rate, delay: Dur, q_ab: QdiscConfig, q_ba: QdiscConfig, loss: (LossModel, LossModel), jitter: Dur, l2: u32, dev: u32) -> LinkSpec {
    let (na, nb) = (&names[a].name, &names[b].name);
    LinkSpec {
        a,
        b,
        rate,
        delay,
        jitter,
        // `bandwidth = "auto"` of the RED family is this link's rate.
        ab: DirSpec { qdisc: q_ab.on_link(rate), loss: loss.0, queue_name: format!("{na}->{nb}"), pcap: false },
        ba: DirSpec { qdisc: q_ba.on_link(rate), loss: loss.1, queue_name: format!("{nb}->{na}"), pcap: false },
        l2_overhead: l2,
        device_queue: dev,
    }
}

const BIG: QdiscConfig = QdiscConfig::DropTail(DropTailConfig { limit: QueueLimit::Packets(100_000) });

fn build_topology(t: &Topology, profile: QdiscProfile) -> R<Net> {
    let host = |n: String| NodeSpec { name: n, kind: NodeKind::Host };
    let router = |n: String| NodeSpec { name: n, kind: NodeKind::Router };
    let (kind, rest) = super::kind_of(t, "topology", TOPOLOGY_KINDS)?;
    match kind.as_str() {
        "dumbbell" => {
            let DumbbellTable { pairs, access_rate, access_delay, sender_delays, receiver_delays, rtt_table, bottleneck, queue, reverse_queue, access_queue, jitter, l2_overhead, device_queue } = super::typed(rest, "topology")?;
            let (pairs, access_rate, queue, bottleneck) = (&pairs, &access_rate, &queue, &bottleneck);
            let n = *pairs as usize;
            if n == 0 {
                return err("topology.pairs", "must be at least 1");
            }
            let ms = Dur::from_millis;
            let (sd, rd): (Vec<Dur>, Vec<Dur>) = match rtt_table {
                Some(RttTable::Eval9) if sender_delays.is_some() || receiver_delays.is_some() || access_delay.is_some() => {
                    return err("topology.rtt_table", "sets every access delay itself; remove access_delay, sender_delays and receiver_delays");
                }
                Some(RttTable::Eval9) => (
                    [0, 0, 0, 12, 12, 12, 25, 25, 25].map(ms).to_vec(),
                    [2, 37, 75, 2, 37, 75, 2, 37, 75].map(ms).to_vec(),
                ),
                None => {
                    let d = access_delay.unwrap_or(Dur::ZERO);
                    (sender_delays.clone().unwrap_or(vec![d]), receiver_delays.clone().unwrap_or(vec![d]))
                }
            };
            if sd.is_empty() {
                return err("topology.sender_delays", "must not be empty");
            }
            if rd.is_empty() {
                return err("topology.receiver_delays", "must not be empty");
            }
            let mut nodes: Vec<NodeSpec> = (0..n).map(|i| host(format!("s{i}"))).collect();
            nodes.extend((0..n).map(|i| host(format!("r{i}"))));
            let (a, b) = (2 * n, 2 * n + 1);
            nodes.push(router("A".into()));
            nodes.push(router("B".into()));
            let aq = match access_queue {
                Some(q) => qspec(&q, "topology.access_queue", profile)?,
                None => BIG,
            };
            let l2 = check_l2(l2_overhead, "topology.l2_overhead")?;
            check_rate(*access_rate, "topology.access_rate")?;
            let dev = device_queue.unwrap_or(1);
            check_device(dev, "topology.device_queue")?;
            let jit = jitter.unwrap_or(Dur::ZERO);
            let mut links = Vec::new();
            for i in 0..n {
                links.push(link(i, a, &nodes, *access_rate, sd[i % sd.len()], aq.clone(), aq.clone(), (LossModel::NONE, LossModel::NONE), jit, l2, dev));
            }
            for i in 0..n {
                links.push(link(b, n + i, &nodes, *access_rate, rd[i % rd.len()], aq.clone(), aq.clone(), (LossModel::NONE, LossModel::NONE), jit, l2, dev));
            }
            let fq = qspec(queue, "topology.queue", profile)?;
            let rq = match reverse_queue {
                Some(q) => qspec(&q, "topology.reverse_queue", profile)?,
                None => BIG,
            };
            let loss = (loss_model(bottleneck.loss.as_ref(), "topology.bottleneck.loss")?, loss_model(bottleneck.reverse_loss.as_ref(), "topology.bottleneck.reverse_loss")?);
            check_rate(bottleneck.rate, "topology.bottleneck.rate")?;
            links.push(link(a, b, &nodes, bottleneck.rate, bottleneck.delay, fq, rq, loss, Dur::ZERO, l2, dev));
            let groups = vec![("senders".to_string(), (0..n).collect()), ("receivers".to_string(), (n..2 * n).collect())];
            Ok(Net { nodes, links, groups, core_queues: Some(vec!["A->B".into(), "B->A".into()]) })
        }
        "parking_lot" => {
            let ParkingLotTable { hops, rate, delay, queue, access_rate, access_delay, access_queue } = super::typed(rest, "topology")?;
            let (hops, rate, delay, queue, access_rate) = (&hops, &rate, &delay, &queue, &access_rate);
            check_rate(*rate, "topology.rate")?;
            check_rate(*access_rate, "topology.access_rate")?;
            let access_delay = &access_delay.unwrap_or(Dur::ZERO);
            let h = *hops as usize;
            if h == 0 {
                return err("topology.hops", "must be at least 1");
            }
            let mut nodes: Vec<NodeSpec> = (0..=h).map(|i| router(format!("R{i}"))).collect();
            let aq = match access_queue {
                Some(q) => qspec(&q, "topology.access_queue", profile)?,
                None => BIG,
            };
            let fq = qspec(queue, "topology.queue", profile)?;
            let mut links = Vec::new();
            for i in 0..h {
                links.push(link(i, i + 1, &nodes, *rate, *delay, fq.clone(), BIG, (LossModel::NONE, LossModel::NONE), Dur::ZERO, 2, 1));
            }
            let add_host = |nodes: &mut Vec<NodeSpec>, name: String, r: usize, links: &mut Vec<LinkSpec>| {
                nodes.push(host(name));
                let k = nodes.len() - 1;
                links.push(link(k, r, nodes, *access_rate, *access_delay, aq.clone(), aq.clone(), (LossModel::NONE, LossModel::NONE), Dur::ZERO, 2, 1));
                k
            };
            add_host(&mut nodes, "long_src".into(), 0, &mut links);
            add_host(&mut nodes, "long_dst".into(), h, &mut links);
            let (mut cs, mut cd) = (Vec::new(), Vec::new());
            for i in 0..h {
                cs.push(add_host(&mut nodes, format!("c{i}_src"), i, &mut links));
                cd.push(add_host(&mut nodes, format!("c{i}_dst"), i + 1, &mut links));
            }
            let core = (0..h).flat_map(|i| [format!("R{i}->R{}", i + 1), format!("R{}->R{i}", i + 1)]).collect();
            Ok(Net { nodes, links, groups: vec![("cross_srcs".into(), cs), ("cross_dsts".into(), cd)], core_queues: Some(core) })
        }
        _ => {
            let GraphTable { nodes: gn, links: gl } = super::typed(rest, "topology")?;
            let mut nodes = Vec::new();
            let mut index = std::collections::HashMap::new();
            for (i, n) in gn.iter().enumerate() {
                check_node_name(&n.name, &format!("topology.nodes[{i}].name"))?;
                if index.insert(n.name.clone(), i).is_some() {
                    return err(format!("topology.nodes[{i}].name"), format!("duplicate node name {:?}", n.name));
                }
                nodes.push(NodeSpec { name: n.name.clone(), kind: if n.kind == NodeKindOpt::Host { NodeKind::Host } else { NodeKind::Router } });
            }
            let find = |name: &str, path: String| -> R<usize> {
                index.get(name).copied().ok_or_else(|| ScenarioError::new(path, format!("no node named {name:?}")))
            };
            let mut links = Vec::new();
            let mut joined = std::collections::HashMap::new();
            for (i, l) in gl.iter().enumerate() {
                let p = format!("topology.links[{i}]");
                let a = find(&l.a, format!("{p}.a"))?;
                let b = find(&l.b, format!("{p}.b"))?;
                if a == b {
                    return err(format!("{p}.b"), "a link must join two different nodes");
                }
                // Queues, pcap files and routes are named by the two nodes a link joins.
                if let Some(j) = joined.insert((a.min(b), a.max(b)), i) {
                    return err(p, format!("links[{j}] already joins {:?} and {:?} (one link per pair of nodes: its queues are named \"{}->{}\" and \"{}->{}\")", l.a, l.b, l.a, l.b, l.b, l.a));
                }
                let q = match &l.queue {
                    Some(q) => qspec(q, &format!("{p}.queue"), profile)?,
                    None => BIG,
                };
                let rq = match &l.reverse_queue {
                    Some(q) => qspec(q, &format!("{p}.reverse_queue"), profile)?,
                    None => q.clone(),
                };
                let loss = (loss_model(l.loss.as_ref(), &format!("{p}.loss"))?, loss_model(l.reverse_loss.as_ref(), &format!("{p}.reverse_loss"))?);
                let dev = l.device_queue.unwrap_or(1);
                check_device(dev, &format!("{p}.device_queue"))?;
                let rate = check_rate(l.rate, &format!("{p}.rate"))?;
                let l2 = check_l2(l.l2_overhead, &format!("{p}.l2_overhead"))?;
                links.push(link(a, b, &nodes, rate, l.delay, q, rq, loss, l.jitter.unwrap_or(Dur::ZERO), l2, dev));
            }
            Ok(Net { nodes, links, groups: vec![], core_queues: None })
        }
    }
}

fn resolve(net: &Net, e: &Endpoints, path: &str) -> R<Vec<usize>> {
    let names: Vec<&str> = match e {
        Endpoints::One(s) => vec![s.as_str()],
        Endpoints::Many(v) => v.iter().map(|s| s.as_str()).collect(),
    };
    let mut out = Vec::new();
    for n in names {
        if let Some((_, g)) = net.groups.iter().find(|(g, _)| g == n) {
            out.extend(g);
            continue;
        }
        match net.nodes.iter().position(|x| x.name == n) {
            Some(i) if net.nodes[i].kind == NodeKind::Host => out.push(i),
            Some(_) => return err(path, format!("{n:?} is a router; flows run between hosts")),
            None => {
                let hosts: Vec<&str> = net.nodes.iter().filter(|x| x.kind == NodeKind::Host).map(|x| x.name.as_str()).collect();
                let mut list = hosts.iter().take(6).copied().collect::<Vec<_>>().join(", ");
                if hosts.len() > 6 {
                    list.push_str(", …");
                }
                let groups: Vec<&str> = net.groups.iter().map(|(g, _)| g.as_str()).collect();
                let g = if groups.is_empty() { String::new() } else { format!("; groups: {}", groups.join(", ")) };
                return Err(ScenarioError::new(path, format!("no host named {n:?} (hosts: {list}{g})")).with_allowed(hosts.iter().map(|s| s.to_string()).collect()));
            }
        }
    }
    if out.is_empty() {
        return err(path, "names no host");
    }
    Ok(out)
}

/// A `tcp_rate` application's write size when the scenario gives none.
const TCP_RATE_WRITE: u64 = 1448;

fn app_spec(v: &AppTable, path: &str) -> R<AppSpec> {
    let (kind, rest) = super::kind_of(v, path, APP_KINDS)?;
    let udp = |rate: sluice_core::Rate, size: u64| -> R<u32> {
        check_rate(rate, &format!("{path}.rate"))?;
        if size == 0 || size > 65_000 {
            return err(format!("{path}.packet_size"), "must be between 1B and 65000B");
        }
        Ok(size as u32)
    };
    // 0 stands for "whatever fits" inside; a written 0 is a mistake.
    let write = |w: Option<sluice_core::units::ByteSize>| -> R<u64> {
        match w {
            Some(w) if w.0 == 0 => err(format!("{path}.write_size"), "must be at least 1B (leave it out to write whatever fits in the send buffer)"),
            w => Ok(w.map_or(0, |w| w.0)),
        }
    };
    Ok(match kind.as_str() {
        "bulk" => {
            let BulkTable { write_size } = super::typed(rest, path)?;
            AppSpec::Bulk { write: write(write_size)? }
        }
        "file" => {
            let FileTable { size, write_size } = super::typed(rest, path)?;
            if size.0 == 0 {
                return err(format!("{path}.size"), "must be greater than zero");
            }
            AppSpec::File { size: size.0, write: write(write_size)? }
        }
        "tcp_rate" => {
            let TcpRateTable { rate, write_size } = super::typed(rest, path)?;
            check_rate(rate, &format!("{path}.rate"))?;
            // Without a size the application still writes in pieces: one full segment (with
            // timestamps on a 1500-byte MTU) each.
            let write = write(write_size)?;
            AppSpec::TcpRate { rate, write: if write == 0 { TCP_RATE_WRITE } else { write } }
        }
        "udp_cbr" => {
            let UdpCbrTable { rate, packet_size } = super::typed(rest, path)?;
            AppSpec::UdpCbr { rate, packet_size: udp(rate, packet_size.0)? }
        }
        _ => {
            let OnOffTable { rate, packet_size, mean_on, mean_off } = super::typed(rest, path)?;
            // Every period is an event: nanosecond periods would take a run of seconds billions
            // of them, and model nothing a microsecond does not.
            for (key, d) in [("mean_on", mean_on), ("mean_off", mean_off)] {
                if d < Dur::from_micros(1) {
                    return err(format!("{path}.{key}"), format!("must be at least 1us, got {d}"));
                }
            }
            AppSpec::OnOff { rate, packet_size: udp(rate, packet_size.0)?, mean_on, mean_off }
        }
    })
}

/// The longest run a scenario may ask for. Time is 64-bit nanoseconds (584 years), so this
/// leaves every sum of a time and a delay far from overflow.
const MAX_DURATION: Dur = Dur(100_000_000 * 1_000_000_000);

/// Build the model; `seed` overrides the file's.
pub fn build(f: ScenarioFile, seed: Option<u64>) -> R<Model> {
    if f.name.trim().is_empty() {
        return err("name", "must not be empty");
    }
    if f.duration == Dur::ZERO {
        return err("duration", "must be greater than zero");
    }
    if f.duration > MAX_DURATION {
        return err("duration", format!("must be at most {MAX_DURATION} (about 3 years of simulated time), got {}", f.duration));
    }
    let warmup = f.warmup.unwrap_or(Dur::ZERO);
    if warmup >= f.duration {
        return err("warmup", format!("must be shorter than duration ({})", f.duration));
    }
    let mut notes = Vec::new();
    if let Some(p) = f.tcp.validate {
        notes.push(("profile".into(), p.as_str().into()));
    }
    let tcp = apply_tcp(&TcpConfig::default(), &f.tcp, "tcp")?;
    // Queue defaults follow the scenario's profile (`[tcp] validate`): ns-3's attribute
    // defaults under "ns3.44".
    let qprofile = match f.tcp.validate {
        Some(Profile::Ns3_44) => QdiscProfile::Ns3_44,
        Some(Profile::Sluice) | None => QdiscProfile::Sluice,
    };
    let mut net = build_topology(&f.topology, qprofile)?;
    if f.flows.is_empty() {
        return err("flows", "at least one [[flows]] entry is required");
    }
    let ngwa_mode = match &f.ngwa {
        None => None,
        Some(t) => Some(u8::try_from(t.mode).ok().and_then(NgwaMode::new).ok_or_else(|| ScenarioError::new("ngwa.mode", format!("must be 1–8 (NGWA's Table 1), got {}", t.mode)))?),
    };
    let mut flows = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (i, fl) in f.flows.iter().enumerate() {
        let p = format!("flows[{i}]");
        let src = resolve(&net, &fl.src, &format!("{p}.src"))?;
        let dst = resolve(&net, &fl.dst, &format!("{p}.dst"))?;
        let count = fl.count.unwrap_or(1) as usize;
        if count == 0 {
            return err(format!("{p}.count"), "must be at least 1");
        }
        let app = app_spec(&fl.app, &format!("{p}.app"))?;
        let ftcp = match &fl.tcp {
            Some(t) => {
                if let Some(v) = t.validate {
                    notes.push((format!("{p}.tcp.validate"), v.as_str().into()));
                }
                flow_tcp(&f.tcp, t, &format!("{p}.tcp"))?
            }
            None => tcp.clone(),
        };
        // `[ngwa] mode`: the congestion window and smoothing of every NGWA flow.
        let ftcp = match ngwa_mode {
            Some(m) if app.is_tcp() => apply_ngwa_mode(ftcp, m, &f.tcp, fl.tcp.as_ref(), &p)?,
            _ => ftcp,
        };
        // An algorithm's table in a flow's own [tcp] applies to that flow's algorithm only.
        if let Some(t) = &fl.tcp {
            for (given, kind, key) in [(t.cubic.is_some(), Cc::Cubic, "cubic"), (t.vegas.is_some(), Cc::Vegas, "vegas"), (t.compound.is_some(), Cc::Compound, "compound"), (t.bbr.is_some(), Cc::Bbr, "bbr")] {
                if given && ftcp.cc != kind {
                    return err(format!("{p}.tcp.{key}"), format!("this flow runs cc = \"{}\", not \"{key}\"", ftcp.cc.as_str()));
                }
            }
        }
        // Each write goes into the send buffer whole: one larger than the buffer never would.
        let first_write = match app {
            AppSpec::Bulk { write } => write,
            AppSpec::File { size, write } => write.min(size),
            AppSpec::TcpRate { write, .. } => write,
            _ => 0,
        };
        if first_write > ftcp.snd_buf {
            return err(format!("{p}.app.write_size"), format!("{first_write} B can never fit in the send buffer of {} B (tcp.snd_buf): at most that", ftcp.snd_buf));
        }
        // TCP clients take ports from 49152 up, so a server's port lies below them.
        let port = match (fl.port, app.is_tcp()) {
            (None, true) => crate::net::SERVER_PORT,
            (None, false) => crate::net::UDP_PORT,
            (Some(v), true) if (1..49_152).contains(&v) => v as u16,
            (Some(v), true) => return err(format!("{p}.port"), format!("must be from 1 to 49151 (ports from 49152 are the clients'), got {v}")),
            (Some(v), false) if (1..=65_535).contains(&v) => v as u16,
            (Some(v), false) => return err(format!("{p}.port"), format!("must be from 1 to 65535, got {v}")),
        };
        let dscp = match fl.dscp {
            None => 0,
            Some(v) if (0..=63).contains(&v) => v as u8,
            Some(v) => return err(format!("{p}.dscp"), format!("must be 0–63, got {v}")),
        };
        let ftcp = crate::tcp::TcpConfig { dscp, ..ftcp };
        let base = fl.name.clone().unwrap_or_else(|| format!("f{i}"));
        for k in 0..count {
            let (s, d) = (src[k % src.len()], dst[k % dst.len()]);
            if s == d {
                return err(format!("{p}.dst"), "source and destination must differ");
            }
            let start = match &fl.start {
                None => StartSpec::At(Time::ZERO),
                Some(StartTable::At(t)) => StartSpec::At(Time::ZERO + *t),
                Some(StartTable::Uniform { uniform: (lo, hi) }) => {
                    if lo >= hi {
                        return err(format!("{p}.start.uniform"), "needs lo < hi");
                    }
                    StartSpec::Uniform(Time::ZERO + *lo, Time::ZERO + *hi)
                }
                Some(StartTable::List(v)) => {
                    if v.len() != count {
                        return err(format!("{p}.start"), format!("lists {} start times but count is {count}", v.len()));
                    }
                    StartSpec::At(Time::ZERO + v[k])
                }
            };
            let latest_start = match start {
                StartSpec::At(t) => t,
                StartSpec::Uniform(_, hi) => hi,
            };
            if latest_start >= Time::ZERO + f.duration {
                return err(format!("{p}.start"), format!("starts at or after the end of the run ({})", f.duration));
            }
            let stop = fl.stop.map(|d| Time::ZERO + d);
            if stop.is_some_and(|t| t <= latest_start) {
                return err(format!("{p}.stop"), "must be later than the flow's (latest possible) start");
            }
            let name = if count > 1 { format!("{base}{k}") } else { base.clone() };
            if !names.insert(name.clone()) {
                // Names key each flow's random stream: two flows with one name would draw alike.
                return err(format!("{p}.name"), format!("flow name {name:?} is already used; flow names must be unique"));
            }
            flows.push(FlowSpec { name, src: s, dst: d, port, dscp, app: app.clone(), start, stop, tcp: ftcp.clone() });
        }
    }
    // A [tcp.<algorithm>] table that no flow uses is a mistake (a misspelt cc, or a table left
    // over): said, not ignored.
    for (given, kind, key) in [(f.tcp.cubic.is_some(), Cc::Cubic, "cubic"), (f.tcp.vegas.is_some(), Cc::Vegas, "vegas"), (f.tcp.compound.is_some(), Cc::Compound, "compound"), (f.tcp.bbr.is_some(), Cc::Bbr, "bbr")] {
        if given && !flows.iter().any(|fl: &FlowSpec| fl.tcp.cc == kind) {
            return err(format!("tcp.{key}"), format!("no flow runs cc = \"{key}\""));
        }
    }
    // Every flow's hosts must be connected.
    let mut monitor = MonitorSpec::default();
    if let Some(d) = f.monitor.queue_sample {
        if d == Dur::ZERO {
            return err("monitor.queue_sample", "must be greater than zero");
        }
        monitor.queue_sample = d;
    }
    if let Some(d) = f.monitor.cwnd_trace {
        if d == Dur::ZERO {
            return err("monitor.cwnd_trace", "must be greater than zero");
        }
        monitor.cwnd_trace = Some(d);
    }
    monitor.rtt_trace = f.monitor.rtt_trace.unwrap_or(false);
    monitor.rewrite_trace = f.monitor.rewrite_trace.unwrap_or(false);
    if let Some(d) = f.monitor.flow_sample {
        if d == Dur::ZERO {
            return err("monitor.flow_sample", "must be greater than zero");
        }
        monitor.flow_sample = Some(d);
    }
    monitor.efficiency = match f.monitor.efficiency {
        Some(EfficiencyOpt::Retx) => Efficiency::Retx,
        Some(EfficiencyOpt::Ip) | None => Efficiency::Ip,
    };
    monitor.cc_trace = f.monitor.cc_trace.unwrap_or(false);
    if monitor.cc_trace && monitor.cwnd_trace.is_none() {
        return err("monitor.cc_trace", "needs monitor.cwnd_trace, whose interval it samples at");
    }
    if let Some(s) = f.monitor.pcap_snaplen {
        if s < 64 {
            return err("monitor.pcap_snaplen", "must be at least 64 bytes");
        }
        monitor.pcap_snaplen = s;
    }
    if let Some(p) = &f.monitor.pcap {
        let wanted: Vec<&str> = match p {
            Endpoints::One(s) => vec![s.as_str()],
            Endpoints::Many(v) => v.iter().map(|s| s.as_str()).collect(),
        };
        let all: Vec<String> = net.links.iter().flat_map(|l| [l.ab.queue_name.clone(), l.ba.queue_name.clone()]).collect();
        for w in wanted {
            match w {
                "none" => {}
                "all" => net.links.iter_mut().for_each(|l| {
                    l.ab.pcap = true;
                    l.ba.pcap = true;
                }),
                name => {
                    let mut hit = false;
                    for l in &mut net.links {
                        for d in [&mut l.ab, &mut l.ba] {
                            if d.queue_name == name {
                                d.pcap = true;
                                hit = true;
                            }
                        }
                    }
                    if !hit {
                        let mut shown: Vec<String> = all.iter().take(8).cloned().collect();
                        if all.len() > 8 {
                            shown.push("…".into());
                        }
                        return Err(ScenarioError::new("monitor.pcap", format!("no link direction named {name:?} (e.g. {}; or \"all\")", shown.join(", "))).with_allowed(all));
                    }
                }
            }
        }
    }
    monitor.queues = match &f.monitor.queues {
        None => net.core_queues.clone(),
        Some(e) => {
            let wanted: Vec<String> = match e {
                Endpoints::One(s) => vec![s.clone()],
                Endpoints::Many(v) => v.clone(),
            };
            if wanted.iter().any(|w| w == "routers") {
                None
            } else {
                let all: Vec<&String> = net.links.iter().flat_map(|l| [&l.ab.queue_name, &l.ba.queue_name]).collect();
                for w in &wanted {
                    if !all.contains(&w) {
                        return Err(ScenarioError::new("monitor.queues", format!("no link direction named {w:?} (or \"routers\" for every router egress queue)")));
                    }
                }
                Some(wanted)
            }
        }
    };
    check_connected(&net, &flows)?;
    check_sample_rows(&f, &net, &flows, &monitor, warmup)?;
    if let Some(d) = &f.description {
        notes.push(("description".into(), d.clone()));
    }
    let (gateways, ngwa, acns) = gateways(&f.gateways, &net, ngwa_mode)?;
    ngwa_opt_len(&mut flows, &f, &ngwa)?;
    Ok(Model { name: f.name, seed: seed.or(f.seed).unwrap_or(1), duration: f.duration, warmup, nodes: net.nodes, links: net.links, flows, monitor, notes, gateways, ngwa, acns })
}

/// `[[gateways]]`: each on a router, at most one per router, reading one of its egress queues
/// (by default the slowest towards another router), with the controller's parameters checked
/// against that queue's limit; NGWA (`kind = "ngwa"`) stamps on every egress and reads no
/// `monitor`, unless `stamp_ack = true` makes it a window controller like the others (reading
/// the monitored data-direction queue); ACNS (`kind = "acns"`) evaluates at enqueue into every egress and reads no
/// `monitor` either.
fn gateways(tables: &[GatewayTable], net: &Net, mode: Option<NgwaMode>) -> R<(Vec<GatewaySpec>, Vec<NgwaSpec>, Vec<AcnsSpec>)> {
    use sluice_core::qdisc::{AnyQdisc, QueueDisc};
    let mut out: Vec<GatewaySpec> = Vec::new();
    let mut stampers: Vec<NgwaSpec> = Vec::new();
    let mut markers: Vec<AcnsSpec> = Vec::new();
    let routers: Vec<String> = net.nodes.iter().filter(|n| n.kind == NodeKind::Router).map(|n| n.name.clone()).collect();
    for (i, g) in tables.iter().enumerate() {
        let path = format!("gateways[{i}]");
        let Some(node) = net.nodes.iter().position(|n| n.name == g.node) else {
            return Err(ScenarioError::new(format!("{path}.node"), format!("no node named {:?} (routers: {})", g.node, routers.join(", "))).with_allowed(routers));
        };
        if net.nodes[node].kind != NodeKind::Router {
            return Err(ScenarioError::new(format!("{path}.node"), format!("{:?} is not a router (routers: {})", g.node, routers.join(", "))).with_allowed(routers));
        }
        if out.iter().any(|o| o.node == node) || stampers.iter().any(|o| o.node == node) || markers.iter().any(|o| o.node == node) {
            return err(format!("{path}.node"), format!("{:?} already has a gateway (one per router)", g.node));
        }
        // (direction, rate, whether it leads to a host)
        let egress: Vec<(&DirSpec, sluice_core::Rate, bool)> = net
            .links
            .iter()
            .flat_map(|l| {
                let host = |n: usize| net.nodes[n].kind == NodeKind::Host;
                [(l.a == node).then(|| (&l.ab, l.rate, host(l.b))), (l.b == node).then(|| (&l.ba, l.rate, host(l.a)))]
            })
            .flatten()
            .collect();
        let names: Vec<String> = egress.iter().map(|(d, _, _)| d.queue_name.clone()).collect();
        let field = |e: sluice_core::qdisc::ParamError| ScenarioError::new(format!("{path}.controller.{}", e.field), e.message);
        let controller = match &g.controller {
            GatewayController::Window(c) => c.clone(),
            GatewayController::Ngwa { config, flow_division_given } => {
                let mut c = config.clone();
                c.validate().map_err(field)?;
                if let Some(m) = mode {
                    if *flow_division_given && c.flow_division != m.flow_division {
                        return err(format!("{path}.controller.flow_division"), format!("ngwa.mode = {} sets flow_division = {}; got {}", m.mode, m.flow_division, c.flow_division));
                    }
                    c.flow_division = m.flow_division;
                }
                if !c.stamp_ack {
                    if g.monitor.is_some() || g.rewrite_at.is_some() || g.flow_table.is_some() {
                        let key = if g.monitor.is_some() { "monitor" } else if g.rewrite_at.is_some() { "rewrite_at" } else { "flow_table" };
                        return err(format!("{path}.{key}"), "not used by NGWA without stamp_ack (it stamps every egress queue at dequeue and counts flows per queue)");
                    }
                    if egress.is_empty() {
                        return err(format!("{path}.node"), format!("{:?} has no links", g.node));
                    }
                    stampers.push(NgwaSpec { node, config: c });
                    continue;
                }
                // The gateway-only variant: a window controller on the monitored queue.
                sluice_core::control::ControllerConfig::Ngwa(c)
            }
            GatewayController::Acns(c) => {
                c.validate().map_err(field)?;
                if g.monitor.is_some() || g.rewrite_at.is_some() {
                    let key = if g.monitor.is_some() { "monitor" } else { "rewrite_at" };
                    return err(format!("{path}.{key}"), "not used by ACNS (it evaluates at enqueue into every egress queue of the router, with that queue's usage)");
                }
                if egress.is_empty() {
                    return err(format!("{path}.node"), format!("{:?} has no links", g.node));
                }
                let flow_table = g.flow_table.clone().unwrap_or_default();
                flow_table.validate().map_err(|e| ScenarioError::new(format!("{path}.flow_table.{}", e.field), e.message))?;
                markers.push(AcnsSpec { node, config: c.clone(), flow_table });
                continue;
            }
        };
        let (dir, _, _) = match &g.monitor {
            Some(m) => *egress.iter().find(|(d, _, _)| &d.queue_name == m).ok_or_else(|| {
                ScenarioError::new(format!("{path}.monitor"), format!("no queue named {m:?} leaving {} (its queues: {})", g.node, names.join(", "))).with_allowed(names.clone())
            })?,
            // The bottleneck: the slowest egress towards another router (a dumbbell's A->B),
            // else the slowest of all; the first of equals.
            None => *egress.iter().min_by_key(|(_, r, to_host)| (*to_host, r.as_bps())).ok_or_else(|| ScenarioError::new(format!("{path}.node"), format!("{:?} has no links", g.node)))?,
        };
        controller.validate().map_err(field)?;
        let limit = AnyQdisc::<crate::net::QPkt>::new(&dir.qdisc, &mut sluice_core::rng::RngStream::from_seed(0)).limit();
        controller.validate_for_queue(limit).map_err(field)?;
        let flow_table = g.flow_table.clone().unwrap_or_default();
        flow_table.validate().map_err(|e| ScenarioError::new(format!("{path}.flow_table.{}", e.field), e.message))?;
        out.push(GatewaySpec { node, controller, flow_table, monitor: dir.queue_name.clone(), rewrite_at: g.rewrite_at.unwrap_or(RewriteAt::Dequeue) });
    }
    Ok((out, stampers, markers))
}

/// `[ngwa] mode` on one TCP flow's options (docs/algorithms/network-return.md, "NGWA"): NGWA on
/// (unless the flow's `tcp.ngwa.enabled = false` leaves it out), smoothing as the mode says, and
/// `cc = "new_reno"` (a congestion window) or `"none"` (RFC 793). A key given in `[tcp]` or the
/// flow's `tcp` that contradicts the mode is an error naming it; a congestion control given for
/// a mode with a congestion window may be any with one.
fn apply_ngwa_mode(mut c: TcpConfig, m: NgwaMode, global: &TcpTable, own: Option<&TcpTable>, p: &str) -> R<TcpConfig> {
    if !c.ngwa.enabled && [own.and_then(|t| t.ngwa.as_ref()), global.ngwa.as_ref()].iter().flatten().any(|t| t.enabled == Some(false)) {
        return Ok(c);
    }
    // Where a key was given: the flow's own table first, else `[tcp]`.
    let given = |own_v: Option<bool>, global_v: Option<bool>, key: &str| -> Option<(String, bool)> {
        match (own_v, global_v) {
            (Some(v), _) => Some((format!("{p}.tcp.{key}"), v)),
            (None, Some(v)) => Some((format!("tcp.{key}"), v)),
            _ => None,
        }
    };
    let own_cc = own.and_then(|t| t.cc).map(|v| (format!("{p}.tcp.cc"), v));
    if let Some((path, cc)) = own_cc.or(global.cc.map(|v| ("tcp.cc".to_string(), v))) {
        if m.congestion_window && cc == CcKind::None {
            return err(path, format!("ngwa.mode = {} runs a congestion window (new_reno in the paper); cc = \"none\" has none", m.mode));
        }
        if !m.congestion_window && cc != CcKind::None {
            return err(path, format!("ngwa.mode = {} runs without a congestion window (cc = \"none\", RFC 793); got \"{}\"", m.mode, cc.as_str()));
        }
    } else {
        c.cc = m.cc();
    }
    let se = |t: Option<&TcpTable>| t.and_then(|t| t.ngwa.as_ref()).and_then(|n| n.smoothing);
    if let Some((path, v)) = given(se(own), se(Some(global)), "ngwa.smoothing") {
        if v != m.smoothing {
            return err(path, format!("ngwa.mode = {} sets smoothing = {}; got {v}", m.mode, m.smoothing));
        }
    }
    c.ngwa.enabled = true;
    c.ngwa.smoothing = m.smoothing;
    c.ngwa.mode = Some(m.mode);
    Ok(c)
}

/// The option size NGWA endpoints make room for: the routers' `opt_len` unless `tcp.ngwa.opt_len`
/// is given, and then it must be theirs (a smaller reduction would let stamped segments
/// exceed the MTU, and the routers would leave them unstamped).
fn ngwa_opt_len(flows: &mut [FlowSpec], f: &ScenarioFile, routers: &[NgwaSpec]) -> R<()> {
    let Some(first) = routers.first() else { return Ok(()) };
    // Gateway indices of the NGWA routers, in file order.
    let idx: Vec<usize> = f.gateways.iter().enumerate().filter(|(_, g)| matches!(&g.controller, GatewayController::Ngwa { config, .. } if !config.stamp_ack)).map(|(i, _)| i).collect();
    let lens: Vec<u32> = routers.iter().map(|r| r.config.opt_len).collect();
    let mut fi = 0;
    for (i, fl) in f.flows.iter().enumerate() {
        let own = fl.tcp.as_ref().and_then(|t| t.ngwa.as_ref()).and_then(|n| n.opt_len);
        let path = if own.is_some() { format!("flows[{i}].tcp.ngwa.opt_len") } else { "tcp.ngwa.opt_len".to_string() };
        let explicit = own.or(f.tcp.ngwa.as_ref().and_then(|n| n.opt_len));
        let count = fl.count.unwrap_or(1) as usize;
        for spec in &mut flows[fi..fi + count] {
            if !spec.tcp.ngwa.enabled {
                continue;
            }
            match explicit {
                Some(v) => {
                    if let Some(k) = lens.iter().position(|&l| l != v) {
                        return err(path.clone(), format!("{v} B differs from gateways[{}].controller.opt_len = {}: the endpoints make room for the option the routers insert", idx[k], lens[k]));
                    }
                }
                None => {
                    if let Some(k) = lens.iter().position(|&l| l != first.config.opt_len) {
                        return err(format!("gateways[{}].controller.opt_len", idx[k]), format!("{} differs from gateways[{}]'s {}: NGWA endpoints make room for one option size; give the same, or tcp.ngwa.opt_len", lens[k], idx[0], lens[0]));
                    }
                    spec.tcp.ngwa.opt_len = first.config.opt_len;
                }
            }
        }
        fi += count;
    }
    Ok(())
}

/// Rows a sampled table (queue lengths, congestion windows) may reach in one run, about half a
/// gigabyte of queue samples: an interval typed as "1ns" instead of "1ms" would otherwise fill
/// memory before the run got anywhere.
pub const MAX_SAMPLE_ROWS: u64 = 20_000_000;

fn check_sample_rows(f: &ScenarioFile, net: &Net, flows: &[FlowSpec], monitor: &MonitorSpec, warmup: Dur) -> R<()> {
    let check = |key: &str, interval: Dur, span: Dur, what: &str, n: u64| -> R<()> {
        let rows = (span.0 / interval.0 + 1).saturating_mul(n);
        if rows > MAX_SAMPLE_ROWS {
            // The shortest interval that fits, rounded up to one significant digit.
            let least = (span.0 as u128 * n as u128 / MAX_SAMPLE_ROWS as u128) as u64 + 1;
            let unit = (0..19).map(|k| 10u64.pow(k)).take_while(|&u| u <= least).last().unwrap_or(1);
            let least = Dur(least.div_ceil(unit) * unit);
            let default = if key == "queue_sample" && f.monitor.queue_sample.is_none() { " (the default)" } else { "" };
            return err(format!("monitor.{key}"), format!("sampling {n} {what} every {interval}{default} for {span} makes {rows} rows, more than {MAX_SAMPLE_ROWS}; use an interval of at least {least}"));
        }
        Ok(())
    };
    let queues = match &monitor.queues {
        Some(v) => v.len() as u64,
        None => net.links.iter().map(|l| (net.nodes[l.a].kind == NodeKind::Router) as u64 + (net.nodes[l.b].kind == NodeKind::Router) as u64).sum(),
    };
    // Queues are sampled over the measurement window, windows over the whole run.
    check("queue_sample", monitor.queue_sample, f.duration - warmup, "queues", queues)?;
    if let Some(d) = monitor.cwnd_trace {
        let tcp = flows.iter().filter(|fl| fl.app.is_tcp()).count() as u64;
        check("cwnd_trace", d, f.duration, "TCP flows", tcp)?;
    }
    if let Some(d) = monitor.flow_sample {
        check("flow_sample", d, f.duration - warmup, "flows", flows.len() as u64)?;
    }
    Ok(())
}

fn check_connected(net: &Net, flows: &[FlowSpec]) -> R<()> {
    let n = net.nodes.len();
    let mut comp: Vec<usize> = (0..n).collect();
    fn root(c: &mut [usize], mut x: usize) -> usize {
        while c[x] != x {
            c[x] = c[c[x]];
            x = c[x];
        }
        x
    }
    for l in &net.links {
        let (a, b) = (root(&mut comp, l.a), root(&mut comp, l.b));
        comp[a] = b;
    }
    for (i, f) in flows.iter().enumerate() {
        if root(&mut comp, f.src) != root(&mut comp, f.dst) {
            return err(format!("flows ({})", f.name), format!("no path from {} to {}", net.nodes[f.src].name, net.nodes[f.dst].name)).map_err(|mut e| {
                e.path = format!("flows[{i}]");
                e
            });
        }
    }
    Ok(())
}
