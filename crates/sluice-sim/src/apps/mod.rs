//! Applications: what drives each flow.
//!
//! TCP applications (bulk, file) hand data to the client endpoint at their start time; the
//! receiving application reads at once. UDP sources (constant bit rate, on-off) are driven by
//! their own timer events. All draws (start times, on/off periods) come from the flow's own
//! random stream.

use crate::model::AppSpec;
use sluice_core::rng::RngStream;
use sluice_core::{Dur, Time};

/// Run-time state of one application.
pub struct App {
    pub flow: u32,
    pub spec: AppSpec,
    pub start: Time,
    pub stop: Option<Time>,
    pub rng: RngStream,
    /// UDP: timer generation (bumped on stop) and on-off phase end.
    pub gen: u32,
    pub on_until: Time,
    pub stopped: bool,
    /// UDP: when the current train of packets began, and packets sent in it.
    pub train_start: Time,
    pub train_sent: u64,
}

impl App {
    /// Begin a train of UDP packets at `t`: the flow's start, or the end of an off period.
    pub fn udp_train(&mut self, t: Time) {
        self.train_start = t;
        self.train_sent = 0;
    }

    /// Count a UDP packet sent at `now` and say when the next one is due. Send times count from
    /// the train's start, so the rate holds exactly over the train however each gap rounds to
    /// the nanosecond (1-byte packets at 3 bit/s leave 8/3 s apart on average, not 2.667 s).
    pub fn udp_sent(&mut self, now: Time) -> Time {
        match self.spec {
            AppSpec::UdpCbr { rate, packet_size } | AppSpec::OnOff { rate, packet_size, .. } => {
                self.train_sent += 1;
                let due = self.train_start + rate.tx_time(packet_size as u64 * self.train_sent);
                due.max(now + Dur(1))
            }
            _ => unreachable!("only UDP applications send UDP packets"),
        }
    }
    pub fn udp_size(&self) -> u32 {
        match self.spec {
            AppSpec::UdpCbr { packet_size, .. } | AppSpec::OnOff { packet_size, .. } => packet_size,
            _ => 0,
        }
    }
}
