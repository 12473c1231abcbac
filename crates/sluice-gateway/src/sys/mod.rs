//! The only unsafe code of the gateway: AF_PACKET sockets with a TPACKET_V3 receive ring, the
//! monotonic clock, `ppoll`, and giving up privileges. Every `unsafe` block says why it is
//! sound (`// SAFETY:`); everything above this module is safe Rust.
#![allow(unsafe_code)]

use crate::error::GatewayError;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;
use std::sync::atomic::{fence, Ordering};

/// `ETH_P_ALL` in network byte order, as `socket` and `bind` want it.
const ETH_P_ALL_BE: u16 = (libc::ETH_P_ALL as u16).to_be();

/// Nanoseconds of `CLOCK_MONOTONIC`: the time the gateway hands the core.
pub fn monotonic_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// Nanoseconds of `CLOCK_REALTIME` (the clock of the receive ring's timestamps).
pub fn realtime_ns() -> u64 {
    clock_ns(libc::CLOCK_REALTIME)
}

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; both clocks exist on every Linux.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    debug_assert_eq!(rc, 0, "clock_gettime of a standard clock cannot fail");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The interface index of `name`, or `<name>: no such device`.
pub fn ifindex(name: &str) -> Result<u32, GatewayError> {
    let c = CString::new(name).map_err(|_| GatewayError::NoSuchDevice(name.to_owned()))?;
    // SAFETY: `c` is a NUL-terminated string that outlives the call.
    let idx = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if idx == 0 {
        return Err(GatewayError::NoSuchDevice(name.to_owned()));
    }
    Ok(idx)
}

/// Bytes per frame slot of a TPACKET_V2 ring: the header and a 1518-byte frame fit.
const V2_FRAME: u32 = 4096;

/// The receive ring's geometry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RingConfig {
    /// TPACKET version: 2 (the default: one frame at a time, so a frame is read as soon as it
    /// arrives) or 3 (blocks of frames, handed over when full or after the timeout: fewer wake-ups
    /// under load, but at light load a frame waits up to the timeout, at least 1 ms).
    pub version: u8,
    /// Bytes per block (a power of two, a multiple of the page size).
    pub block_size: u32,
    /// Number of blocks.
    pub block_nr: u32,
    /// How long the kernel keeps a block open before handing it over with what it holds (ms).
    pub block_timeout_ms: u32,
}

impl Default for RingConfig {
    /// TPACKET_V2 (its added latency meets the gateway's 50 µs target; V3's block wait does
    /// not); for V3, 64 blocks of 256 KiB (16 MiB, about 10,000 full-size frames) retired after
    /// 1 ms.
    fn default() -> Self {
        RingConfig { version: 2, block_size: 1 << 18, block_nr: 64, block_timeout_ms: 1 }
    }
}

/// What the ring says of one received frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RxMeta {
    /// The kernel's receive timestamp, `CLOCK_REALTIME` ns.
    pub ts_real_ns: u64,
    /// Length on the wire (may exceed the captured bytes).
    pub wire_len: u32,
    /// The frame's checksum is partial (`TP_STATUS_CSUMNOTREADY`): only the pseudo-header sum is
    /// in the TCP/UDP checksum field.
    pub csum_not_ready: bool,
}

/// An AF_PACKET socket bound to one interface, with a TPACKET_V3 receive ring; it also sends
/// (plain `send`, bypassing the kernel's qdisc).
pub struct PacketSocket {
    fd: OwnedFd,
    ring: NonNull<u8>,
    ring_len: usize,
    cfg: RingConfig,
    /// The block (V3) or frame (V2) to read next.
    block: u32,
    name: String,
}

impl std::fmt::Debug for PacketSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PacketSocket").field("interface", &self.name).field("fd", &self.fd.as_raw_fd()).finish()
    }
}

fn call_err(iface: &str, call: &'static str) -> GatewayError {
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => GatewayError::Privilege { iface: iface.to_owned(), call, capability: "CAP_NET_RAW" },
        Some(libc::ENODEV) | Some(libc::ENXIO) => GatewayError::NoSuchDevice(iface.to_owned()),
        _ => GatewayError::Sys { iface: iface.to_owned(), call, source: e },
    }
}

fn setsockopt<T>(fd: RawFd, level: libc::c_int, opt: libc::c_int, val: &T) -> libc::c_int {
    // SAFETY: `val` points to a live `T` of `size_of::<T>()` bytes, which is what the option
    // expects (each caller passes the kernel's type for `opt`).
    unsafe { libc::setsockopt(fd, level, opt, (val as *const T).cast(), std::mem::size_of::<T>() as libc::socklen_t) }
}

impl PacketSocket {
    /// Open, set up the ring, bind to `name` (all protocols), enter promiscuous mode, ignore
    /// frames this host sends, and bypass the kernel's qdisc on send. Needs CAP_NET_RAW.
    pub fn open(name: &str, cfg: RingConfig) -> Result<PacketSocket, GatewayError> {
        let index = ifindex(name)?;
        // Protocol 0: the socket receives nothing until `bind` names the interface, so no frame
        // of another interface ever lands in the ring.
        // SAFETY: plain syscall with constant arguments.
        let raw = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0) };
        if raw < 0 {
            return Err(call_err(name, "socket(AF_PACKET)"));
        }
        // SAFETY: `raw` is a fresh descriptor we own; OwnedFd closes it exactly once.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let version = if cfg.version == 2 { libc::tpacket_versions::TPACKET_V2 } else { libc::tpacket_versions::TPACKET_V3 } as libc::c_int;
        if setsockopt(raw, libc::SOL_PACKET, libc::PACKET_VERSION, &version) < 0 {
            return Err(call_err(name, "setsockopt(PACKET_VERSION)"));
        }
        let rc = if cfg.version == 2 {
            let req = libc::tpacket_req { tp_block_size: cfg.block_size, tp_block_nr: cfg.block_nr, tp_frame_size: V2_FRAME, tp_frame_nr: (cfg.block_size / V2_FRAME) * cfg.block_nr };
            setsockopt(raw, libc::SOL_PACKET, libc::PACKET_RX_RING, &req)
        } else {
            let req = libc::tpacket_req3 {
                tp_block_size: cfg.block_size,
                tp_block_nr: cfg.block_nr,
                // In V3 frames are packed in a block; frame_size only bounds the count.
                tp_frame_size: 2048,
                tp_frame_nr: (cfg.block_size / 2048) * cfg.block_nr,
                tp_retire_blk_tov: cfg.block_timeout_ms,
                tp_sizeof_priv: 0,
                tp_feature_req_word: 0,
            };
            setsockopt(raw, libc::SOL_PACKET, libc::PACKET_RX_RING, &req)
        };
        if rc < 0 {
            return Err(call_err(name, "setsockopt(PACKET_RX_RING)"));
        }
        let ring_len = cfg.block_size as usize * cfg.block_nr as usize;
        // SAFETY: mapping the ring the kernel just allocated for this socket, with the length
        // it was given; the result is checked before use.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), ring_len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED | libc::MAP_LOCKED, raw, 0) };
        let p = if p == libc::MAP_FAILED {
            // MAP_LOCKED fails under a low RLIMIT_MEMLOCK; an unlocked ring works as well.
            // SAFETY: as above, without MAP_LOCKED.
            let q = unsafe { libc::mmap(std::ptr::null_mut(), ring_len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, raw, 0) };
            if q == libc::MAP_FAILED {
                return Err(call_err(name, "mmap(rx ring)"));
            }
            q
        } else {
            p
        };
        let ring = NonNull::new(p.cast::<u8>()).ok_or_else(|| call_err(name, "mmap(rx ring)"))?;
        let mut sock = PacketSocket { fd, ring, ring_len, cfg, block: 0, name: name.to_owned() };
        // SAFETY: sockaddr_ll is plain old data; all-zero is a valid value.
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = ETH_P_ALL_BE;
        sll.sll_ifindex = index as i32;
        // SAFETY: `sll` is a valid sockaddr_ll and its size is passed.
        let rc = unsafe { libc::bind(raw, (&sll as *const libc::sockaddr_ll).cast(), std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t) };
        if rc < 0 {
            return Err(call_err(name, "bind"));
        }
        let mreq = libc::packet_mreq { mr_ifindex: index as i32, mr_type: libc::PACKET_MR_PROMISC as u16, mr_alen: 0, mr_address: [0; 8] };
        if setsockopt(raw, libc::SOL_PACKET, libc::PACKET_ADD_MEMBERSHIP, &mreq) < 0 {
            return Err(call_err(name, "setsockopt(PACKET_ADD_MEMBERSHIP)"));
        }
        let one: libc::c_int = 1;
        if setsockopt(raw, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, &one) < 0 {
            return Err(call_err(name, "setsockopt(PACKET_IGNORE_OUTGOING)"));
        }
        if setsockopt(raw, libc::SOL_PACKET, libc::PACKET_QDISC_BYPASS, &one) < 0 {
            return Err(call_err(name, "setsockopt(PACKET_QDISC_BYPASS)"));
        }
        // Frames that arrived between bind and now are in the ring already: fine, they are
        // forwarded like the rest.
        sock.block = 0;
        Ok(sock)
    }

    /// The interface's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The descriptor to poll.
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Hand every frame the kernel has filled to `f`, oldest first, returning each block (V3)
    /// or frame (V2) to the kernel once read; at most `max_blocks` blocks (V2: 64 frames per
    /// block's worth). Returns the frames read.
    pub fn rx(&mut self, max_blocks: u32, f: impl FnMut(&[u8], RxMeta)) -> u64 {
        if self.cfg.version == 2 {
            return self.rx_v2(max_blocks * 64, f);
        }
        self.rx_v3(max_blocks, f)
    }

    fn rx_v2(&mut self, max_frames: u32, mut f: impl FnMut(&[u8], RxMeta)) -> u64 {
        let per_block = self.cfg.block_size / V2_FRAME;
        let total = per_block * self.cfg.block_nr;
        let mut frames = 0;
        for _ in 0..max_frames {
            let i = self.block;
            let off = (i / per_block) as usize * self.cfg.block_size as usize + (i % per_block) as usize * V2_FRAME as usize;
            // SAFETY: frame `i` < frame_nr starts at `off`, inside the mapping; the kernel puts
            // a tpacket2_hdr there, 16-byte aligned.
            let h = unsafe { self.ring.as_ptr().add(off).cast::<libc::tpacket2_hdr>() };
            // SAFETY: `h` is valid (above); the status word is shared with the kernel.
            let status = unsafe { std::ptr::read_volatile(&raw const (*h).tp_status) };
            if status & libc::TP_STATUS_USER == 0 {
                break;
            }
            fence(Ordering::Acquire);
            // SAFETY: the frame belongs to user space until its status is handed back below.
            let (mac, snap, len, sec, nsec) = unsafe { ((*h).tp_mac as usize, (*h).tp_snaplen as usize, (*h).tp_len, (*h).tp_sec, (*h).tp_nsec) };
            if mac + snap <= V2_FRAME as usize {
                // SAFETY: the frame's bytes lie inside this frame slot (checked), owned by user
                // space until handed back.
                let bytes = unsafe { std::slice::from_raw_parts(self.ring.as_ptr().add(off + mac), snap) };
                f(bytes, RxMeta { ts_real_ns: sec as u64 * 1_000_000_000 + nsec as u64, wire_len: len, csum_not_ready: status & libc::TP_STATUS_CSUMNOTREADY != 0 });
                frames += 1;
            }
            fence(Ordering::Release);
            // SAFETY: hand the frame back with a volatile store to its valid status word.
            unsafe { std::ptr::write_volatile(&raw mut (*h).tp_status, libc::TP_STATUS_KERNEL) };
            self.block = (i + 1) % total;
        }
        frames
    }

    fn rx_v3(&mut self, max_blocks: u32, mut f: impl FnMut(&[u8], RxMeta)) -> u64 {
        let mut frames = 0;
        for _ in 0..max_blocks {
            let off = self.block as usize * self.cfg.block_size as usize;
            // SAFETY: `off` is the start of block `self.block` < block_nr, inside the mapping
            // of `ring_len` bytes; the kernel places a tpacket_block_desc there, suitably
            // aligned (blocks are page aligned).
            let desc = unsafe { self.ring.as_ptr().add(off).cast::<libc::tpacket_block_desc>() };
            // SAFETY: `desc` is valid (above); the status word is shared with the kernel, so
            // it is read with a volatile load.
            let status = unsafe { std::ptr::read_volatile(&raw const (*desc).hdr.bh1.block_status) };
            if status & libc::TP_STATUS_USER == 0 {
                break;
            }
            // The block's contents are published before its status (the kernel's smp_wmb).
            fence(Ordering::Acquire);
            // SAFETY: the block belongs to user space now (status checked above): the kernel
            // does not write it until we hand it back.
            let (num, first) = unsafe { ((*desc).hdr.bh1.num_pkts, (*desc).hdr.bh1.offset_to_first_pkt) };
            let block_end = off + self.cfg.block_size as usize;
            let mut at = off + first as usize;
            for _ in 0..num {
                if at + std::mem::size_of::<libc::tpacket3_hdr>() > block_end {
                    break;
                }
                // SAFETY: `at` lies inside this block (checked above) and the kernel aligns
                // each tpacket3_hdr to TPACKET_ALIGNMENT.
                let h = unsafe { &*self.ring.as_ptr().add(at).cast::<libc::tpacket3_hdr>() };
                let start = at + h.tp_mac as usize;
                let len = h.tp_snaplen as usize;
                if start + len <= block_end {
                    // SAFETY: the frame's bytes lie inside this block (checked), which user
                    // space owns until it is handed back below.
                    let bytes = unsafe { std::slice::from_raw_parts(self.ring.as_ptr().add(start), len) };
                    let meta = RxMeta {
                        ts_real_ns: h.tp_sec as u64 * 1_000_000_000 + h.tp_nsec as u64,
                        wire_len: h.tp_len,
                        csum_not_ready: h.tp_status & libc::TP_STATUS_CSUMNOTREADY != 0,
                    };
                    f(bytes, meta);
                    frames += 1;
                }
                if h.tp_next_offset == 0 {
                    break;
                }
                at += h.tp_next_offset as usize;
            }
            fence(Ordering::Release);
            // SAFETY: hand the block back: a volatile store of TP_STATUS_KERNEL to the status
            // word of a valid block descriptor (above); nothing reads the block after this.
            unsafe { std::ptr::write_volatile(&raw mut (*desc).hdr.bh1.block_status, libc::TP_STATUS_KERNEL) };
            self.block = (self.block + 1) % self.cfg.block_nr;
        }
        frames
    }

    /// Send one frame out of the interface. `Ok(false)`: the device queue is full (the frame is
    /// lost, as a full NIC ring would lose it).
    pub fn send(&self, frame: &[u8]) -> Result<bool, GatewayError> {
        // SAFETY: `frame` is a valid slice for the duration of the call; the socket is bound,
        // so no address is needed.
        let n = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::ENOBUFS) => Ok(false),
                // A frame above the MTU (offloads left on upstream): lost, counted by the caller.
                Some(libc::EMSGSIZE) => Ok(false),
                _ => Err(GatewayError::Sys { iface: self.name.clone(), call: "send", source: e }),
            };
        }
        Ok(true)
    }
}

impl Drop for PacketSocket {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly the mapping made in `open`; no reference into it outlives
        // `self` (frames are handed out only for the duration of the `rx` callback).
        unsafe { libc::munmap(self.ring.as_ptr().cast(), self.ring_len) };
    }
}

/// Wait until one of `fds` is readable or `timeout_ns` passed (`None`: no timeout). Returns the
/// readiness of each descriptor. An interrupted wait returns all false.
pub fn wait(fds: &[RawFd], timeout_ns: Option<u64>, ready: &mut [bool]) -> Result<(), GatewayError> {
    let mut pfds = [libc::pollfd { fd: -1, events: 0, revents: 0 }; 8];
    let n = fds.len().min(pfds.len());
    for (p, &fd) in pfds.iter_mut().zip(fds) {
        *p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    }
    let ts = timeout_ns.map(|t| libc::timespec { tv_sec: (t / 1_000_000_000) as libc::time_t, tv_nsec: (t % 1_000_000_000) as libc::c_long });
    let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `pfds` holds `n` initialized pollfd entries; `tsp` is null or points to `ts`,
    // alive for the call; no signal mask is changed.
    let rc = unsafe { libc::ppoll(pfds.as_mut_ptr(), n as libc::nfds_t, tsp, std::ptr::null()) };
    for r in ready.iter_mut() {
        *r = false;
    }
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EINTR) {
            return Ok(());
        }
        return Err(GatewayError::Sys { iface: String::new(), call: "ppoll", source: e });
    }
    for (r, p) in ready.iter_mut().zip(&pfds[..n]) {
        *r = p.revents != 0;
    }
    Ok(())
}

/// Ask for timer wake-ups without the default 50 µs of slack (the delay line's precision).
pub fn tight_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and touches only this thread.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

/// The uid and gid of `user` from the password database.
fn lookup_user(user: &str) -> Result<(libc::uid_t, libc::gid_t), GatewayError> {
    let c = CString::new(user).map_err(|_| GatewayError::Config(format!("user: no such user {user:?}")))?;
    // SAFETY: `pwd`, `buf` and `out` are valid for the call; getpwnam_r writes only into them.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: as above; `c` is NUL-terminated.
    let rc = unsafe { libc::getpwnam_r(c.as_ptr(), &mut pwd, buf.as_mut_ptr(), buf.len(), &mut out) };
    if rc != 0 || out.is_null() {
        return Err(GatewayError::Config(format!("user: no such user {user:?}")));
    }
    Ok((pwd.pw_uid, pwd.pw_gid))
}

/// After the sockets are open: switch to `user` (if given; supplementary groups cleared), then
/// drop every capability from the effective, permitted, inheritable and bounding sets, and set
/// no-new-privileges. Open sockets keep working: their rights were checked when they were made.
pub fn drop_privileges(user: Option<&str>) -> Result<(), GatewayError> {
    let sys = |call: &'static str| GatewayError::Sys { iface: String::new(), call, source: io::Error::last_os_error() };
    // The bounding set first, while CAP_SETPCAP is still held (without it the call fails
    // with EPERM and the set stays: harmless once the other sets are empty).
    for cap in 0..64 {
        // SAFETY: PR_CAPBSET_DROP takes a capability number; unknown numbers return EINVAL.
        unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) };
    }
    if let Some(u) = user {
        let (uid, gid) = lookup_user(u)?;
        // SAFETY: plain syscalls on this process's credentials; an empty group list is valid.
        unsafe {
            if libc::setgroups(0, std::ptr::null()) != 0 {
                return Err(sys("setgroups"));
            }
            if libc::setresgid(gid, gid, gid) != 0 {
                return Err(sys("setresgid"));
            }
            if libc::setresuid(uid, uid, uid) != 0 {
                return Err(sys("setresuid"));
            }
        }
    }
    #[repr(C)]
    struct CapHeader {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Copy, Clone)]
    struct CapData {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    let hdr = CapHeader { version: LINUX_CAPABILITY_VERSION_3, pid: 0 };
    let data = [CapData { effective: 0, permitted: 0, inheritable: 0 }; 2];
    // SAFETY: capset with a version-3 header and the two data words that version expects.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &hdr as *const CapHeader, data.as_ptr()) };
    if rc != 0 {
        return Err(sys("capset"));
    }
    // SAFETY: PR_SET_NO_NEW_PRIVS with 1 and zero padding arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) } != 0 {
        return Err(sys("prctl(PR_SET_NO_NEW_PRIVS)"));
    }
    Ok(())
}

static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_stop_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// Make SIGINT and SIGTERM set a flag (read with [`stop_requested`]) instead of killing the
/// process, so the loop can flush its log and exit.
pub fn install_stop_handler() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe; sigaction
        // is given a zeroed struct with the handler and an empty mask.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_stop_signal as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Whether SIGINT or SIGTERM arrived.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}
