//! PINK (Grazia, Klapez, Patriciello, Casoni, IEEE WiMob 2015; Computer Communications 2017),
//! as summarised by the EWT paper §3.4.
//!
//! Each flow's window is its fair share of the channel over its own RTT, times a headroom `k`:
//!
//! ```text
//! rwnd_i = max(k · (C/8)/N · RTT_i, MSS);     write min(W_r, rwnd_i)
//! ```
//!
//! Paper 000 lists PINK's inputs (active connections `N`, each flow's RTT, channel bandwidth
//! `C`) but not its formula; this one is Sluice's reconstruction, to be replaced by the PINK
//! papers' definition once read (docs/algorithms/network-return.md, "PINK"). A flow with no
//! RTT yet is left alone.

use super::{flow_mss, share_bdp_bytes, GatewayView, Proposal, RttChoice, WindowController};
use crate::flows::{FlowCount, FlowEntry};
use crate::packet::{Desired, Floor, HeaderView};
use crate::qdisc::ParamError;
use crate::time::Rate;
use serde::{Deserialize, Serialize};

/// `{ kind = "pink", k = 1.0, rtt = "smoothed", flow_count = "table", mss = 1460 }`, optionally
/// `capacity = "10Mbps"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PinkConfig {
    /// `C`; the monitored link's rate when absent.
    pub capacity: Option<Rate>,
    /// Headroom factor on the fair-share window.
    pub k: f64,
    pub rtt: RttChoice,
    pub flow_count: FlowCount,
    /// The floor (bytes) when the handshake showed no MSS.
    pub mss: u32,
}

impl Default for PinkConfig {
    /// `k = 1` (no headroom) and the smoothed RTT: Sluice's reconstruction.
    fn default() -> Self {
        PinkConfig { capacity: None, k: 1.0, rtt: RttChoice::Smoothed, flow_count: FlowCount::Table, mss: 1460 }
    }
}

impl PinkConfig {
    /// Checks the fields; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.k.is_finite() && self.k > 0.0) {
            return Err(ParamError::new("k", format!("must be a finite number > 0, got {}", self.k)));
        }
        if self.capacity == Some(Rate(0)) {
            return Err(ParamError::new("capacity", "must be greater than 0"));
        }
        if self.mss == 0 {
            return Err(ParamError::new("mss", "must be greater than 0"));
        }
        Ok(())
    }
}

/// PINK (module doc). Stateless apart from its configuration.
#[derive(Clone, Debug)]
pub struct Pink {
    cfg: PinkConfig,
}

impl Pink {
    pub fn new(cfg: PinkConfig) -> Pink {
        Pink { cfg }
    }
}

impl WindowController for Pink {
    fn name(&self) -> &'static str {
        "pink"
    }
    fn desired_window(&mut self, _ack: &impl HeaderView, flow: &FlowEntry, gw: &GatewayView<'_>) -> Option<Proposal> {
        let rtt = self.cfg.rtt.of(flow)?;
        let c = self.cfg.capacity.unwrap_or(gw.link).as_bps();
        let share = share_bdp_bytes(c, rtt, gw.flow_count(self.cfg.flow_count));
        let w = if self.cfg.k == 1.0 { share } else { (share as f64 * self.cfg.k).min(u64::MAX as f64) as u64 };
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

    // tests docs/algorithms/network-return.md, "PINK" example: C = 10 Mb/s, N = 4, RTT = 600 ms
    // → 1,250,000 B/s / 4 · 0.6 s = 187,500 B; k = 1.5 → 281,250 B.
    #[test]
    fn pink_fair_share_window() {
        let (flows, id) = one_flow(None, None);
        let mut flow = flows.get(id).unwrap().clone();
        flow.rtt_smoothed = Some(Dur::from_millis(600));
        let gw = GatewayView { queue: QueueReading { bytes: 0, packets: 0, limit: QueueLimit::Packets(100) }, link: Rate::mbps(10), flows: &flows, now: Time::ZERO, oracle_flows: Some(4) };
        let mut p = Pink::new(PinkConfig { flow_count: FlowCount::Oracle, ..PinkConfig::default() });
        assert_eq!(p.desired_window(&Seg::ack_from_client(65_535), &flow, &gw).unwrap().desired, Desired::Bytes(187_500));
        let mut p = Pink::new(PinkConfig { flow_count: FlowCount::Oracle, k: 1.5, ..PinkConfig::default() });
        assert_eq!(p.desired_window(&Seg::ack_from_client(65_535), &flow, &gw).unwrap().desired, Desired::Bytes(281_250));
        // rtt = "min" uses the minimum sample: 300 ms → 93,750 B.
        flow.rtt_min = Some(Dur::from_millis(300));
        let mut p = Pink::new(PinkConfig { flow_count: FlowCount::Oracle, rtt: RttChoice::Min, ..PinkConfig::default() });
        assert_eq!(p.desired_window(&Seg::ack_from_client(65_535), &flow, &gw).unwrap().desired, Desired::Bytes(93_750));
    }

    #[test]
    fn pink_config_errors_name_the_field() {
        assert!(PinkConfig { k: 0.0, ..PinkConfig::default() }.validate().unwrap_err().to_string().starts_with("k: "));
    }
}
