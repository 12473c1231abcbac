//! SAP-LAW, Smart Access Point with Limited Advertised Window (Palazzi et al. 2005–2006), as
//! summarised by the EWT paper §3.2.
//!
//! Each TCP flow gets its share of the capacity left by UDP, turned into a window with the
//! flow's RTT:
//!
//! ```text
//! rate_tcp = (C − UDP) / N_tcp;     rwnd_i = max(rate_tcp/8 · RTT_i, MSS);     write min(W_r, rwnd_i)
//! ```
//!
//! `C` is the configured capacity (the monitored link's rate unless `capacity` is given),
//! `UDP` the flow table's UDP rate estimate on the monitored egress, `N_tcp` the active TCP
//! flows. The variables are the paper's; multiplying by the flow's RTT is Sluice's
//! reconstruction (a rate becomes a window only through a time), and `rtt = "min"` the
//! alternative reading (docs/algorithms/network-return.md, "SAP-LAW"). The paper "enters" the
//! value unconditionally; Sluice never raises the receiver's window. With `UDP ≥ C` the floor
//! (one MSS) applies. A flow with no RTT yet is left alone.

use super::{flow_mss, share_bdp_bytes, GatewayView, Proposal, RttChoice, WindowController};
use crate::flows::{FlowCount, FlowEntry};
use crate::packet::{Desired, Floor, HeaderView};
use crate::qdisc::ParamError;
use crate::time::Rate;
use serde::{Deserialize, Serialize};

/// `{ kind = "sap_law", rtt = "smoothed", flow_count = "table", mss = 1460 }`, optionally
/// `capacity = "10Mbps"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SapLawConfig {
    /// `C`; the monitored link's rate when absent.
    pub capacity: Option<Rate>,
    pub rtt: RttChoice,
    pub flow_count: FlowCount,
    /// The floor (bytes) when the handshake showed no MSS.
    pub mss: u32,
}

impl Default for SapLawConfig {
    /// The smoothed RTT (Sluice's reading of the EWT paper §3.2), the flow table's count, MSS 1460.
    fn default() -> Self {
        SapLawConfig { capacity: None, rtt: RttChoice::Smoothed, flow_count: FlowCount::Table, mss: 1460 }
    }
}

impl SapLawConfig {
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.capacity == Some(Rate(0)) {
            return Err(ParamError::new("capacity", "must be greater than 0"));
        }
        if self.mss == 0 {
            return Err(ParamError::new("mss", "must be greater than 0"));
        }
        Ok(())
    }
}

/// SAP-LAW (module doc). Stateless apart from its configuration.
#[derive(Clone, Debug)]
pub struct SapLaw {
    cfg: SapLawConfig,
}

impl SapLaw {
    pub fn new(cfg: SapLawConfig) -> SapLaw {
        SapLaw { cfg }
    }
}

impl WindowController for SapLaw {
    fn name(&self) -> &'static str {
        "sap_law"
    }
    fn desired_window(&mut self, _ack: &impl HeaderView, flow: &FlowEntry, gw: &GatewayView<'_>) -> Option<Proposal> {
        let rtt = self.cfg.rtt.of(flow)?;
        let c = self.cfg.capacity.unwrap_or(gw.link).as_bps();
        let udp = gw.flows.udp().rate(gw.now).as_bps();
        let n = gw.flow_count(self.cfg.flow_count);
        let w = share_bdp_bytes(c.saturating_sub(udp), rtt, n);
        Some(Proposal { desired: Desired::Bytes(w), floor: Floor::Mss(flow_mss(flow, self.cfg.mss)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::testutil::*;
    use crate::control::QueueReading;
    use crate::time::{Dur, Time};
    use crate::units::QueueLimit;

    // tests docs/algorithms/network-return.md, "SAP-LAW" example: C = 10 Mb/s, UDP = 3 Mb/s,
    // N = 7, RTT = 100 ms → (10 − 3)/7 = 1 Mb/s per flow → 125,000 B/s · 0.1 s = 12,500 B.
    #[test]
    fn sap_law_share_after_udp() {
        let (mut flows, id) = one_flow(None, None);
        // 3 Mb/s of UDP for 4 s: 37,500 B per 100 ms bin; after 40 bins the average is within
        // 0.75^40 ≈ 1e-5 of 3 Mb/s, i.e. 3,000,000 − 30 b/s at worst.
        for k in 0..40u64 {
            flows.count_udp(37_500, Time(k * 100_000_000));
        }
        let now = Time(4_000_000_000);
        let udp = flows.udp().rate(now).as_bps();
        assert!((2_999_900..=3_000_000).contains(&udp), "{udp}");
        let mut flow = flows.get(id).unwrap().clone();
        flow.rtt_smoothed = Some(Dur::from_millis(100));
        let mut s = SapLaw::new(SapLawConfig { flow_count: FlowCount::Oracle, ..SapLawConfig::default() });
        let gw = GatewayView { queue: QueueReading { bytes: 0, packets: 0, limit: QueueLimit::Packets(100) }, link: Rate::mbps(10), flows: &flows, now, oracle_flows: Some(7) };
        let p = s.desired_window(&Seg::ack_from_client(65_535), &flow, &gw).unwrap();
        // (10,000,000 − udp)/7 · 0.1/8 with udp ≤ 100 b/s short of 3 Mb/s: 12,500 B (+0.2 at most).
        assert_eq!(p.desired, Desired::Bytes(12_500));
    }

    // The formula alone, exact: (10 − 3) Mb/s / 7 · 100 ms / 8 = 12,500 B. With UDP at or
    // above C the share is 0 B (the writer's MSS floor then applies); no RTT at all: untouched.
    #[test]
    fn sap_law_formula() {
        assert_eq!(share_bdp_bytes(7_000_000, Dur::from_millis(100), 7), 12_500);
        let (flows, id) = one_flow(None, None);
        let mut flow = flows.get(id).unwrap().clone();
        let gw = GatewayView { queue: QueueReading { bytes: 0, packets: 0, limit: QueueLimit::Packets(100) }, link: Rate::mbps(10), flows: &flows, now: Time::ZERO, oracle_flows: None };
        let mut s = SapLaw::new(SapLawConfig::default());
        flow.rtt_handshake = None;
        assert!(s.desired_window(&Seg::ack_from_client(100), &flow, &gw).is_none());
        flow.rtt_handshake = Some(Dur::from_millis(60));
        // 10 Mb/s, one flow, 60 ms: 75,000 B.
        assert_eq!(s.desired_window(&Seg::ack_from_client(100), &flow, &gw).unwrap().desired, Desired::Bytes(75_000));
        let mut s = SapLaw::new(SapLawConfig { capacity: Some(Rate(0)), ..SapLawConfig::default() });
        assert_eq!(s.desired_window(&Seg::ack_from_client(100), &flow, &gw).unwrap().desired, Desired::Bytes(0));
    }

    // tests the parameter checks, each naming its field: a capacity of 0 and an MSS of 0.
    #[test]
    fn sap_law_config_errors_name_the_field() {
        let field = |c: SapLawConfig| c.validate().map_err(|e| e.field);
        assert_eq!(field(SapLawConfig::default()), Ok(()));
        assert_eq!(field(SapLawConfig { capacity: Some(Rate(0)), ..SapLawConfig::default() }), Err("capacity"));
        assert_eq!(field(SapLawConfig { capacity: Some(Rate(1)), ..SapLawConfig::default() }), Ok(()));
        assert_eq!(field(SapLawConfig { mss: 0, ..SapLawConfig::default() }), Err("mss"));
    }
}
