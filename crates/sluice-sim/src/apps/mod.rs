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
}

impl App {
    /// Gap between UDP packets while sending.
    pub fn udp_interval(&self) -> Dur {
        match self.spec {
            AppSpec::UdpCbr { rate, packet_size } | AppSpec::OnOff { rate, packet_size, .. } => {
                let d = rate.tx_time(packet_size as u64);
                if d == Dur::ZERO {
                    Dur(1)
                } else {
                    d
                }
            }
            _ => Dur::ZERO,
        }
    }
    pub fn udp_size(&self) -> u32 {
        match self.spec {
            AppSpec::UdpCbr { packet_size, .. } | AppSpec::OnOff { packet_size, .. } => packet_size,
            _ => 0,
        }
    }
}
