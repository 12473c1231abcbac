//! EWT, Early Window Tailoring (Talau, Fonseca, Wille, "Early Window Tailoring", JCNC 2019: "the EWT paper").
//!
//! Once the monitored queue holds more than the start point `S`, every ACK's window is scaled
//! by the free fraction of the gateway memory:
//!
//! ```text
//! B_a = B − U;   if U ≤ S: leave the ACK;   W_ewt = W_r · B_a / B;   write min(W_r, max(W_ewt, MSS))
//! ```
//!
//! `B` is the monitored queue's limit in bytes (a packet limit times the MTU), `U` its
//! occupancy in bytes when the ACK reaches the rewrite point, `W_r` the ACK's own window. The
//! rule multiplies the ACK's field by a ratio, so it works in field units (`floor(field · B_a /
//! B)`, which equals the byte computation rounded down to the field) and needs the shift only
//! for the MSS floor; a flow picked up mid-stream is still controlled, with the floor computed
//! for shift 0. No per-flow state, no flow count, no RTT.
//!
//! Reconstructions (docs/algorithms/network-return.md, "EWT"): the symbols of the paper's
//! Algorithm 1 were lost in print; `B_a/B` follows the surviving "/B"; `S = 0.3·B` by default
//! (the paper's own value is lost; its example bounds it to `[0.2·B, 0.5·B)`). The paper writes
//! `max(W_ewt, MSS)` unconditionally, which *raises* a window below one MSS; Sluice never
//! raises by default, and `literal_floor = true` reproduces the paper.

use super::{flow_mss, GatewayView, Level, Proposal, WindowController};
use crate::flows::FlowEntry;
use crate::packet::{Desired, Floor, HeaderView};
use crate::qdisc::ParamError;
use crate::units::QueueLimit;
use serde::{Deserialize, Serialize};

/// `{ kind = "ewt", start = "30%", literal_floor = false, mss = 1460, mtu = 1500 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EwtConfig {
    /// Start point `S`: EWT acts only while the occupancy is above it.
    pub start: Level,
    /// Write `max(W_ewt, MSS)` even above the receiver's window, as the paper's Algorithm 1.
    pub literal_floor: bool,
    /// The floor (bytes) when the flow's handshake showed no MSS.
    pub mss: u32,
    /// Bytes per packet when the monitored queue's limit is in packets (`B = limit·mtu`).
    pub mtu: u32,
}

impl Default for EwtConfig {
    /// `S = 0.3·B`: Sluice's reconstruction inside the bounds of the paper's example (the EWT paper
    /// §4.2: the windows do not change at 20 % occupancy and do at about half); MSS 1460 and MTU
    /// 1500 (Ethernet without TCP options).
    fn default() -> Self {
        EwtConfig { start: Level::Fraction(0.3), literal_floor: false, mss: 1460, mtu: 1500 }
    }
}

impl EwtConfig {
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.start.check("start", None, self.mtu)?;
        if self.mss == 0 {
            return Err(ParamError::new("mss", "must be greater than 0"));
        }
        if self.mtu == 0 {
            return Err(ParamError::new("mtu", "must be greater than 0"));
        }
        Ok(())
    }
    /// `start` below the monitored queue's limit.
    pub fn validate_for_queue(&self, limit: QueueLimit) -> Result<(), ParamError> {
        self.start.check("start", Some(limit), self.mtu)
    }
}

/// EWT (module doc). Stateless apart from its configuration (and a cache of `S` in bytes).
#[derive(Clone, Debug)]
pub struct Ewt {
    cfg: EwtConfig,
    /// `(B, S)` in bytes for the last capacity `B` seen: `S` is recomputed only when `B` changes.
    start_at: (u64, u64),
}

impl Ewt {
    pub fn new(cfg: EwtConfig) -> Ewt {
        let start_at = (0, cfg.start.bytes(0, cfg.mtu));
        Ewt { cfg, start_at }
    }
    /// `S` in bytes for a queue of capacity `b`.
    fn start_bytes(&mut self, b: u64) -> u64 {
        if self.start_at.0 != b {
            self.start_at = (b, self.cfg.start.bytes(b, self.cfg.mtu));
        }
        self.start_at.1
    }
    pub fn config(&self) -> &EwtConfig {
        &self.cfg
    }
}

impl WindowController for Ewt {
    fn name(&self) -> &'static str {
        "ewt"
    }
    fn ongoing_rtt(&self) -> crate::flows::OngoingRtt {
        crate::flows::OngoingRtt::Off
    }
    fn desired_window(&mut self, ack: &impl HeaderView, flow: &FlowEntry, gw: &GatewayView<'_>) -> Option<Proposal> {
        let b = gw.queue.capacity_bytes(self.cfg.mtu);
        let u = gw.queue.bytes;
        // the EWT paper, Algorithm 1: EWT "only works when memory usage is greater than S".
        if b == 0 || u <= self.start_bytes(b) {
            return None;
        }
        let free = b.saturating_sub(u);
        let field = ack.tcp_window_field()? as u64;
        // W_ewt = W_r · B_a / B, in field units (a 128-bit product only past 2^48 bytes free).
        let w_ewt = match field.checked_mul(free) {
            Some(p) => p / b,
            None => (field as u128 * free as u128 / b as u128) as u64,
        };
        let mss = flow_mss(flow, self.cfg.mss);
        let floor = if self.cfg.literal_floor { Floor::LiteralMss(mss) } else { Floor::Mss(mss) };
        Some(Proposal { desired: Desired::Field(w_ewt), floor })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::testutil::*;
    use crate::control::QueueReading;
    use crate::flows::FlowTable;
    use crate::packet::{lower_window, WindowRewrite};
    use crate::time::{Rate, Time};

    fn view(flows: &FlowTable, u: u64) -> GatewayView<'_> {
        GatewayView { queue: QueueReading { bytes: u, packets: 0, limit: QueueLimit::Bytes(100_000) }, link: Rate::mbps(10), flows, now: Time(1), oracle_flows: None }
    }

    /// One ACK of window field `w` through EWT and the writer; the field it leaves.
    fn run(ewt: &mut Ewt, flows: &FlowTable, id: crate::flows::FlowId, u: u64, w: u16) -> u16 {
        let flow = flows.get(id).unwrap();
        let mut ack = Seg::ack_from_client(w);
        if let Some(p) = ewt.desired_window(&ack, flow, &view(flows, u)) {
            lower_window(&mut ack, p.desired, flow, p.floor);
        }
        ack.window
    }

    // tests docs/algorithms/network-return.md, "EWT" worked example: B = 100,000, S = 30,000,
    // W_r = 60,000 (shift 0), MSS 1460 (the handshake's MSS option, no timestamps).
    #[test]
    fn ewt_window_table() {
        let (flows, id) = one_flow(None, None); // no WS option: shift known to be 0
        let mut ewt = Ewt::new(EwtConfig { start: Level::Absolute(QueueLimit::Bytes(30_000)), ..EwtConfig::default() });
        // U = 20,000 ≤ S: untouched.
        assert_eq!(run(&mut ewt, &flows, id, 20_000, 60_000), 60_000);
        // U = 50,000: 60,000 · 50,000 / 100,000 = 30,000.
        assert_eq!(run(&mut ewt, &flows, id, 50_000, 60_000), 30_000);
        // U = 90,000: 60,000 · 10,000 / 100,000 = 6,000.
        assert_eq!(run(&mut ewt, &flows, id, 90_000, 60_000), 6_000);
        // U = 99,500: 60,000 · 500 / 100,000 = 300 < MSS, floored to 1,460.
        assert_eq!(run(&mut ewt, &flows, id, 99_500, 60_000), 1_460);
        // U = 30,000 = S exactly: "U ≤ S: leave it".
        assert_eq!(run(&mut ewt, &flows, id, 30_000, 60_000), 60_000);
    }

    // A memory too large for a 64-bit product: B = 2^50 bytes, U = 2^49 (above S = 30 %), field
    // 65,535: 65,535 · 2^49 overflows 64 bits; W = floor(65,535 · 2^49 / 2^50) = 32,767.
    #[test]
    fn ewt_with_a_memory_past_64_bit_products() {
        let (flows, id) = one_flow(None, None);
        let mut ewt = Ewt::new(EwtConfig::default());
        let gw = GatewayView { queue: QueueReading { bytes: 1 << 49, packets: 0, limit: QueueLimit::Bytes(1 << 50) }, link: Rate::mbps(10), flows: &flows, now: Time(1), oracle_flows: None };
        let p = ewt.desired_window(&Seg::ack_from_client(65_535), flows.get(id).unwrap(), &gw).unwrap();
        assert_eq!(p.desired, Desired::Field(32_767));
    }

    // tests docs/algorithms/network-return.md, "EWT": shift 7, field 468 (59,904 B) at U = 50,000
    // → floor(468 · 0.5) = 234 (29,952 B); near full the floor is ceil(1460/128) = 12.
    #[test]
    fn ewt_in_field_units_with_scale() {
        let (flows, id) = one_flow(Some(7), Some(7));
        let mut ewt = Ewt::new(EwtConfig { start: Level::Absolute(QueueLimit::Bytes(30_000)), ..EwtConfig::default() });
        assert_eq!(run(&mut ewt, &flows, id, 50_000, 468), 234);
        // 468 · 500 / 100,000 = 2.34 → 2 < 12: floored to 12 (1,536 B ≥ 1,460).
        assert_eq!(run(&mut ewt, &flows, id, 99_500, 468), 12);
    }

    // tests docs/algorithms/network-return.md, "EWT", never raise vs literal_floor: W_r = 1,000
    // at U = 50,000 → W_ewt = 500; default leaves 1,000, the paper's Algorithm 1 writes 1,460.
    #[test]
    fn ewt_small_window_is_left_unless_literal() {
        let (flows, id) = one_flow(None, None);
        let start = Level::Absolute(QueueLimit::Bytes(30_000));
        let mut ewt = Ewt::new(EwtConfig { start, ..EwtConfig::default() });
        assert_eq!(run(&mut ewt, &flows, id, 50_000, 1_000), 1_000);
        let mut lit = Ewt::new(EwtConfig { start, literal_floor: true, ..EwtConfig::default() });
        assert_eq!(run(&mut lit, &flows, id, 50_000, 1_000), 1_460);
        let flow = flows.get(id).unwrap();
        let mut ack = Seg::ack_from_client(1_000);
        let p = lit.desired_window(&ack, flow, &view(&flows, 50_000)).unwrap();
        assert_eq!(lower_window(&mut ack, p.desired, flow, p.floor), WindowRewrite::Raised { from_field: 1_000, to_field: 1_460 });
    }

    // S = 30 % follows the capacity when one controller sees another B: at U = 40,000,
    // B = 100,000 (S 30,000) acts, B = 200,000 (S 60,000) leaves the window, and back again.
    #[test]
    fn ewt_start_follows_the_capacity() {
        let (flows, id) = one_flow(None, None);
        let mut ewt = Ewt::new(EwtConfig::default());
        let mut field = |b: u64| {
            let gw = GatewayView { queue: QueueReading { bytes: 40_000, packets: 0, limit: QueueLimit::Bytes(b) }, link: Rate::mbps(10), flows: &flows, now: Time(1), oracle_flows: None };
            ewt.desired_window(&Seg::ack_from_client(60_000), flows.get(id).unwrap(), &gw).map(|p| p.desired)
        };
        assert_eq!(field(100_000), Some(Desired::Field(36_000)));
        assert_eq!(field(200_000), None);
        assert_eq!(field(100_000), Some(Desired::Field(36_000)));
    }

    // Default S = 30 % of B: U = 30,000 of 100,000 leaves the window, 30,001 acts.
    #[test]
    fn ewt_default_start_is_thirty_percent() {
        let (flows, id) = one_flow(None, None);
        let mut ewt = Ewt::new(EwtConfig::default());
        assert_eq!(run(&mut ewt, &flows, id, 30_000, 60_000), 60_000);
        // 60,000 · 69,999 / 100,000 = 41,999.4 → 41,999.
        assert_eq!(run(&mut ewt, &flows, id, 30_001, 60_000), 41_999);
    }

    // A packet limit: B = 100 pkt · 1500 = 150,000; U = 75,000 halves the window.
    #[test]
    fn ewt_packet_limit_counts_mtu_bytes() {
        let (flows, id) = one_flow(None, None);
        let mut ewt = Ewt::new(EwtConfig::default());
        let flow = flows.get(id).unwrap();
        let mut ack = Seg::ack_from_client(60_000);
        let gw = GatewayView { queue: QueueReading { bytes: 75_000, packets: 50, limit: QueueLimit::Packets(100) }, ..view(&flows, 0) };
        let p = ewt.desired_window(&ack, flow, &gw).unwrap();
        lower_window(&mut ack, p.desired, flow, p.floor);
        assert_eq!(ack.window, 30_000);
    }

    #[test]
    fn ewt_config_errors_name_the_field() {
        let c = EwtConfig { start: Level::Absolute(QueueLimit::Packets(900)), ..EwtConfig::default() };
        assert_eq!(c.validate_for_queue(QueueLimit::Packets(900)).unwrap_err().to_string(), "start: must be below the queue limit (900pkt)");
        assert!(c.validate_for_queue(QueueLimit::Packets(901)).is_ok());
        let c = EwtConfig { start: Level::Fraction(1.2), ..EwtConfig::default() };
        assert!(c.validate().unwrap_err().to_string().starts_with("start: "));
        let c: EwtConfig = toml_like(r#"{"start": "20%", "literal_floor": true}"#);
        assert_eq!(c.start, Level::Fraction(0.2));
        assert!(c.literal_floor);
        assert_eq!(Ewt::new(c.clone()).config(), &c);
    }

    fn toml_like<T: serde::de::DeserializeOwned>(json: &str) -> T {
        serde_json::from_str(json).unwrap()
    }
}
