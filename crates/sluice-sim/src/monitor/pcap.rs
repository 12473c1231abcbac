//! Placeholder pcap writer (replaced by the full implementation).
use crate::packet::SimPacket;
use sluice_core::Time;
use std::io::{self, Write};

pub struct PcapWriter<W: Write> {
    w: W,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(w: W, _snaplen: u32) -> io::Result<Self> {
        Ok(PcapWriter { w })
    }
    pub fn write(&mut self, _t: Time, _pkt: &SimPacket) -> io::Result<()> {
        Ok(())
    }
    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}
