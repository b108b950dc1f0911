//! echo-server: a TCP server on 127.0.0.1 that answers each request with its payload reversed
//! after wait_us µs, in seq, threads, pool or one of tokio's runtimes (workloads/echo-server.md;
//! the conversation is docs/protocol.md's).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::protocol::{bad_args, crash, Call, Conversation, Failure, Outcome};
use crate::workloads::{plain, Model, Workload};

const MAX_PAYLOAD: usize = 65_536;
const MAX_WAIT_US: u64 = 10_000_000;
const BACKLOG: i32 = 4096; // the kernel caps it at net.core.somaxconn
/// A stats line waits (this long at most) until every connection it counted is closed on the
/// server's side: the client may read the last reply before the server's thread counts it.
const SETTLE: Duration = Duration::from_secs(2);

const NO_START_MODES: &[(&str, &str)] = &[
    ("cold", "a server makes its threads before its ready line; its rounds are timed by the load generator, not by a start"),
    ("warm", "a server's threads are made once, before its ready line, for every round: there is no per-round start to keep warm"),
];

const SEQ: &str = "one connection at a time on one thread: the accept loop serves a connection to its end (std::net, blocking) before it accepts the next";
const THREADS: &str = "one std::thread per connection (2 MiB stack), blocking std::net I/O and thread::sleep";
const POOL: &str = "--workers std::threads, each accepting and serving one connection at a time with blocking std::net I/O";
const CURRENT_THREAD: &str = "tokio's current-thread runtime on one thread of its own: a task per connection, tokio::net, \
                              tokio::time::sleep for the wait (tokio's timer has 1 ms granularity)";
const MULTI_THREAD: &str = "tokio's multi-thread runtime of --workers threads (work stealing): a task per connection, tokio::net, \
                            tokio::time::sleep for the wait (1 ms granularity)";

pub const WORKLOAD: Workload = Workload {
    name: "echo-server",
    params: &["wait_us", "port"],
    models: &[
        Model { detail: SEQ, ..plain("seq", "seq") },
        Model { detail: THREADS, ..plain("threads", "threads") },
        Model { detail: POOL, workers: true, start_unavailable: NO_START_MODES, ..plain("pool", "pool") },
        Model { detail: CURRENT_THREAD, ..plain("tokio-current-thread", "event-loop") },
        Model { detail: MULTI_THREAD, workers: true, start_unavailable: NO_START_MODES, ..plain("tokio-multi-thread", "green") },
    ],
    kernels: &[],
    run,
};

/// What a stats line reports, counted by every connection's thread or task at once.
#[derive(Default)]
pub struct Tally {
    accepted: AtomicU64,
    replies: AtomicU64,
    open: AtomicU64,
    threads_peak: AtomicU64,
    ended: AtomicBool,
}

impl Tally {
    fn opened(&self) {
        self.accepted.fetch_add(1, Ordering::Relaxed);
        self.open.fetch_add(1, Ordering::SeqCst);
    }

    fn closed(&self) {
        self.open.fetch_sub(1, Ordering::SeqCst);
    }

    fn saw_threads(&self) {
        self.threads_peak.fetch_max(os_threads(), Ordering::Relaxed);
    }

    /// One stats line's extra since the line before, once every counted connection is closed.
    fn take(&self) -> Value {
        let deadline = Instant::now() + SETTLE;
        while self.open.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        let now = os_threads();
        let peak = self.threads_peak.swap(now, Ordering::Relaxed).max(now);
        json!({"accepted": self.accepted.swap(0, Ordering::Relaxed), "replies": self.replies.swap(0, Ordering::Relaxed),
               "threads_peak": peak})
    }
}

/// The `Threads:` line of /proc/self/status.
pub fn os_threads() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find_map(|line| line.strip_prefix("Threads:")).and_then(|n| n.trim().parse().ok()).unwrap_or(0)
}

/// The spec's reply in place: `buffer` holds the header then the payload; the payload is reversed.
pub fn make_reply(buffer: &mut [u8]) {
    buffer[8..].reverse();
}

fn payload_len(header: &[u8]) -> usize {
    u32::from_be_bytes([header[4], header[5], header[6], header[7]]) as usize
}

/// 127.0.0.1:port with SO_REUSEADDR and a backlog of 4096 (std's bind takes 128).
fn listen(port: u16) -> Outcome<TcpListener> {
    let failed = |what: &str| crash(&format!("echo-server cannot {what} 127.0.0.1:{port}"), std::io::Error::last_os_error());
    // SAFETY: plain socket calls on a descriptor this function owns (the TcpListener closes it).
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(failed("open a socket for"));
        }
        let listener = TcpListener::from_raw_fd(fd);
        let one: libc::c_int = 1;
        let size = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        libc::setsockopt(fd, libc::SOL_SOCKET, libc::SO_REUSEADDR, (&one as *const libc::c_int).cast(), size);
        let address = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: port.to_be(),
            sin_addr: libc::in_addr { s_addr: u32::from(std::net::Ipv4Addr::LOCALHOST).to_be() },
            sin_zero: [0; 8],
        };
        let length = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        if libc::bind(fd, (&address as *const libc::sockaddr_in).cast(), length) != 0 {
            return Err(failed("listen on"));
        }
        if libc::listen(fd, BACKLOG) != 0 {
            return Err(failed("listen on"));
        }
        Ok(listener)
    }
}

/// Serves one connection to its end with blocking I/O: exactly 8 header bytes, exactly len payload
/// bytes (read_exact asks for no more, so the next request stays in the kernel), the wait, one
/// write. EOF, a len over the limit or a reset ends it quietly.
fn serve_blocking(mut stream: TcpStream, wait: Duration, tally: &Tally) {
    let _ = stream.set_nodelay(true);
    let mut header = [0u8; 8];
    while stream.read_exact(&mut header).is_ok() {
        let length = payload_len(&header);
        if length > MAX_PAYLOAD {
            break;
        }
        let mut buffer = vec![0u8; 8 + length];
        if stream.read_exact(&mut buffer[8..]).is_err() {
            break;
        }
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
        buffer[..8].copy_from_slice(&header);
        make_reply(&mut buffer);
        if stream.write_all(&buffer).is_err() {
            break;
        }
        tally.replies.fetch_add(1, Ordering::Relaxed);
    }
    drop(stream);
    tally.closed();
}

async fn serve_async(mut stream: tokio::net::TcpStream, wait: Duration, tally: Arc<Tally>) {
    let _ = stream.set_nodelay(true);
    let mut header = [0u8; 8];
    while stream.read_exact(&mut header).await.is_ok() {
        let length = payload_len(&header);
        if length > MAX_PAYLOAD {
            break;
        }
        let mut buffer = vec![0u8; 8 + length];
        if stream.read_exact(&mut buffer[8..]).await.is_err() {
            break;
        }
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        buffer[..8].copy_from_slice(&header);
        make_reply(&mut buffer);
        if stream.write_all(&buffer).await.is_err() {
            break;
        }
        tally.replies.fetch_add(1, Ordering::Relaxed);
    }
    drop(stream);
    tally.closed();
}

/// Accepts until the listener is shut down, counting each connection and handing it to `serve`.
fn accept_loop(listener: &TcpListener, tally: &Tally, mut serve: impl FnMut(TcpStream)) {
    for stream in listener.incoming() {
        match stream {
            Ok(stream) => {
                tally.opened();
                serve(stream);
            }
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => return, // shut down at end of stdin
            Err(e) => {
                eprintln!("echo-server accept: {e}"); // out of descriptors: keep serving the others
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

fn spawn(name: &str, body: impl FnOnce() + Send + 'static) -> Outcome<std::thread::JoinHandle<()>> {
    std::thread::Builder::new().name(name.into()).spawn(body).map_err(|e| Failure::Limit(format!("starting the {name} thread: {e}")))
}

/// Starts the blocking model's threads on the listener; it runs until the listener is shut down.
fn start_blocking(model: &str, workers: usize, listener: &TcpListener, wait: Duration, tally: &Arc<Tally>) -> Outcome<()> {
    let threads = if model == "pool" { workers } else { 1 };
    for index in 0..threads {
        let listener = listener.try_clone().map_err(|e| crash("sharing the listener", e))?;
        let tally = Arc::clone(tally);
        let per_connection = model == "threads";
        spawn(&format!("{model}-{index}"), move || {
            accept_loop(&listener, &tally, |stream| {
                if !per_connection {
                    return serve_blocking(stream, wait, &tally);
                }
                let mine = Arc::clone(&tally);
                if let Err(e) = std::thread::Builder::new().spawn(move || serve_blocking(stream, wait, &mine)) {
                    eprintln!("echo-server threads: {e}; connection closed"); // the client sees it closed: a result
                    tally.closed();
                }
            })
        })?;
    }
    if model == "threads" {
        // The peak of a thread per connection: /proc/self/status sampled every 5 ms.
        let tally = Arc::clone(tally);
        spawn("threads-sampler", move || {
            while !tally.ended.load(Ordering::Relaxed) {
                tally.saw_threads();
                std::thread::sleep(Duration::from_millis(5));
            }
        })?;
    }
    Ok(())
}

/// A tokio runtime on a thread of its own (the main thread keeps stdin): it accepts until `stop`,
/// then is shut down, its tasks dropped. Returns once it accepts.
fn start_tokio(model: &str, workers: usize, listener: TcpListener, wait: Duration, tally: &Arc<Tally>, stop: Arc<tokio::sync::Notify>)
    -> Outcome<std::thread::JoinHandle<()>> {
    let runtime = if model == "tokio-current-thread" {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_all().build()
    }
    .map_err(|e| Failure::Limit(format!("building tokio's runtime: {e}")))?;
    listener.set_nonblocking(true).map_err(|e| crash("the listener", e))?;
    let (started, up) = mpsc::channel();
    let tally = Arc::clone(tally);
    let thread = spawn(model, move || {
        runtime.block_on(async move {
            let listener = match tokio::net::TcpListener::from_std(listener) {
                Ok(listener) => listener,
                Err(e) => return started.send(Err(crash("tokio's listener", e))).unwrap_or(()),
            };
            let _ = started.send(Ok(()));
            loop {
                tokio::select! {
                    _ = stop.notified() => return,
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => {
                            tally.opened();
                            tokio::spawn(serve_async(stream, wait, Arc::clone(&tally)));
                        }
                        Err(e) => {
                            eprintln!("echo-server accept: {e}");
                            tokio::time::sleep(Duration::from_millis(1)).await;
                        }
                    },
                }
            }
        });
        runtime.shutdown_timeout(Duration::from_millis(500));
    })?;
    up.recv().map_err(|e| crash("tokio's thread", e))??;
    Ok(thread)
}

fn bounded(call: &Call, name: &str, high: u64) -> Outcome<u64> {
    let value = call.number(name, Some(0))?;
    if value > high {
        return Err(bad_args(format!("--{} must be from 0 to {high}, got {value}", name.replace('_', "-"))));
    }
    Ok(value)
}

/// The whole conversation: listen, start the model, the ready line, a stats line per stdin line;
/// at the end of stdin the listener is shut down and the runtime ended.
fn run(call: &Call, talk: &mut Conversation) -> Outcome<()> {
    let wait = Duration::from_micros(bounded(call, "wait-us", MAX_WAIT_US)?);
    let port = bounded(call, "port", 65_535)? as u16;
    let takes_workers = WORKLOAD.models.iter().any(|m| m.name == call.model && m.workers);
    let workers = if takes_workers { call.workers()? } else { 1 };
    let detail = WORKLOAD.models.iter().find(|m| m.name == call.model).map_or("", |m| m.detail);
    let listener = listen(port)?;
    let port = listener.local_addr().map_err(|e| crash("the listener", e))?.port();
    let tally = Arc::new(Tally::default());
    let stop = Arc::new(tokio::sync::Notify::new());
    let (runtime_thread, listener) = if call.model.starts_with("tokio") {
        (Some(start_tokio(&call.model, workers, listener, wait, &tally, Arc::clone(&stop))?), None)
    } else {
        start_blocking(&call.model, workers, &listener, wait, &tally)?;
        (None, Some(listener))
    };
    let mut extra = json!({"model_detail": detail});
    if takes_workers {
        extra["workers"] = json!(workers);
    }
    talk.say(&json!({"ready": "none", "port": port, "extra": extra}))?;
    for index in 0.. {
        let Some(variant) = talk.next_variant(index)? else { break };
        let served = tally.take();
        talk.say(&json!({"rep": variant, "items": served["replies"], "checksum": "served", "extra": served}))?;
    }
    tally.ended.store(true, Ordering::Relaxed);
    if let Some(thread) = runtime_thread {
        stop.notify_one();
        let _ = thread.join();
    }
    if let Some(listener) = listener {
        // SAFETY: shutdown(2) on the listening socket wakes every thread blocked in accept(2) on
        // it or its clones; the socket itself is closed when the last of them drops its clone.
        unsafe { libc::shutdown(listener.as_raw_fd(), libc::SHUT_RDWR) };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};

    /// One served call in this process: stdin and stdout are pipes, the server runs on a thread.
    struct Served {
        stdin: Option<std::io::PipeWriter>,
        lines: BufReader<std::io::PipeReader>,
        port: u16,
        thread: Option<std::thread::JoinHandle<Outcome<()>>>,
    }

    fn serve(model: &str, wait_us: u64) -> Served {
        let mut args: Vec<String> = ["echo-server", "--model", model, "--wait-us", &wait_us.to_string()].map(String::from).to_vec();
        if WORKLOAD.models.iter().any(|m| m.name == model && m.workers) {
            args.extend(["--workers".into(), "2".into()]);
        }
        let call = Call::parse(&args).unwrap();
        let (stdin_read, stdin) = std::io::pipe().unwrap();
        let (stdout_read, stdout) = std::io::pipe().unwrap();
        let thread = std::thread::spawn(move || crate::workloads::dispatch(&call, &mut Conversation::new(BufReader::new(stdin_read), stdout)));
        let mut lines = BufReader::new(stdout_read);
        let ready = read_line(&mut lines);
        assert_eq!(ready["ready"], "none", "{model}: {ready}");
        assert_eq!(ready["extra"]["model_detail"].as_str().unwrap().is_empty(), false);
        let port = ready["port"].as_u64().unwrap() as u16;
        Served { stdin: Some(stdin), lines, port, thread: Some(thread) }
    }

    fn read_line(lines: &mut impl BufRead) -> Value {
        let mut line = String::new();
        lines.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    impl Served {
        fn connect(&self) -> TcpStream {
            let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            stream
        }

        fn stats(&mut self, variant: u64) -> Value {
            writeln!(self.stdin.as_ref().unwrap(), "{variant}").unwrap();
            read_line(&mut self.lines)
        }

        /// Ends stdin: the server returns Ok within 2 s and no longer listens.
        fn close(&mut self) {
            drop(self.stdin.take());
            let thread = self.thread.take().unwrap();
            let deadline = Instant::now() + Duration::from_secs(5);
            while !thread.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(thread.is_finished(), "still serving after the end of stdin");
            assert!(thread.join().unwrap().is_ok());
            assert!(TcpStream::connect(("127.0.0.1", self.port)).is_err(), "still listening");
        }
    }

    impl Drop for Served {
        fn drop(&mut self) {
            if self.thread.is_some() && !std::thread::panicking() {
                self.close();
            }
        }
    }

    fn send(stream: &mut TcpStream, id: u32, payload: &[u8]) {
        let mut request = id.to_be_bytes().to_vec();
        request.extend((payload.len() as u32).to_be_bytes());
        request.extend(payload);
        stream.write_all(&request).unwrap();
    }

    fn expect_reply(stream: &mut TcpStream, id: u32, payload: &[u8]) {
        let mut got = vec![0u8; 8 + payload.len()];
        stream.read_exact(&mut got).unwrap_or_else(|e| panic!("reply to {id}: {e}"));
        let mut want = id.to_be_bytes().to_vec();
        want.extend((payload.len() as u32).to_be_bytes());
        want.extend(payload.iter().rev());
        assert_eq!(got, want, "reply to {id}");
    }

    fn expect_closed(stream: &mut TcpStream) {
        assert_eq!(stream.read(&mut [0u8; 100]).unwrap(), 0, "the server should close this connection");
    }

    /// Connections a model serves at once here (pool with --workers 2).
    fn at_once(model: &str) -> usize {
        match model {
            "seq" => 1,
            "pool" => 2,
            _ => 6,
        }
    }

    fn models() -> impl Iterator<Item = &'static str> {
        WORKLOAD.models.iter().map(|m| m.name)
    }

    #[test]
    fn the_spec_vector() {
        for model in models() {
            let server = serve(model, 0);
            let mut stream = server.connect();
            stream.write_all(b"\x00\x00\x00\x01\x00\x00\x00\x03abc").unwrap();
            let mut reply = [0u8; 11];
            stream.read_exact(&mut reply).unwrap();
            assert_eq!(&reply, b"\x00\x00\x00\x01\x00\x00\x00\x03cba", "{model}");
        }
    }

    #[test]
    fn random_payloads_over_concurrent_connections_then_the_stats_line() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for model in models() {
            let mut server = serve(model, 2000);
            let mut replies = 0;
            for _ in 0..2 {
                // in lockstep: no more connections than the model serves at once
                let mut streams: Vec<TcpStream> = (0..at_once(model)).map(|_| server.connect()).collect();
                for request in 0..4u32 {
                    let payloads: Vec<Vec<u8>> = (0..streams.len())
                        .map(|i| (0..request as usize * 100 + i).map(|_| { seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1); (seed >> 33) as u8 }).collect())
                        .collect();
                    for (i, stream) in streams.iter_mut().enumerate() {
                        send(stream, 1000 * i as u32 + request, &payloads[i]);
                    }
                    for (i, stream) in streams.iter_mut().enumerate() {
                        expect_reply(stream, 1000 * i as u32 + request, &payloads[i]);
                        replies += 1;
                    }
                }
            }
            let line = server.stats(7);
            assert_eq!((line["rep"].as_u64(), line["items"].as_u64(), line["checksum"].as_str()), (Some(7), Some(replies), Some("served")), "{model}");
            assert_eq!(line["extra"]["accepted"].as_u64(), Some(2 * at_once(model) as u64), "{model}: {line}");
            assert_eq!(server.stats(8)["items"], 0, "{model}: counted since the line before");
        }
    }

    #[test]
    fn a_len_over_65536_closes_that_connection_only() {
        for model in models() {
            let server = serve(model, 0);
            let mut bad = server.connect();
            bad.write_all(&[0, 0, 0, 2, 0, 1, 0, 1]).unwrap();
            expect_closed(&mut bad);
            drop(bad);
            let mut good = server.connect();
            send(&mut good, 3, b"xy");
            expect_reply(&mut good, 3, b"xy");
        }
    }

    #[test]
    fn a_short_request_at_eof_gets_no_reply() {
        for model in models() {
            let server = serve(model, 0);
            let mut stream = server.connect();
            stream.write_all(&[0, 0, 0, 4, 0, 0, 0, 10, b'a', b'b', b'c']).unwrap();
            stream.shutdown(std::net::Shutdown::Write).unwrap();
            expect_closed(&mut stream);
        }
    }

    /// With wait_us 2,000 and 20 connections kept open, a concurrent model answers every one (in
    /// reverse order here); seq answers only the first and pool its first two until one closes.
    #[test]
    fn the_wait_holds_only_what_the_model_serves_at_once() {
        for model in models() {
            let server = serve(model, 2000);
            let mut streams: Vec<TcpStream> = (0..20).map(|_| server.connect()).collect();
            for (i, stream) in streams.iter_mut().enumerate() {
                send(stream, i as u32, b"wait");
            }
            let served = if model == "seq" || model == "pool" { at_once(model) } else { streams.len() };
            for i in (0..served).rev() {
                expect_reply(&mut streams[i], i as u32, b"wait");
            }
            if served < streams.len() {
                streams[served].set_read_timeout(Some(Duration::from_millis(300))).unwrap();
                assert!(streams[served].read(&mut [0u8; 1]).is_err(), "{model}: answered while the first stayed open");
                drop(streams.remove(0));
                streams[served - 1].set_read_timeout(Some(Duration::from_secs(20))).unwrap();
                expect_reply(&mut streams[served - 1], served as u32, b"wait");
            }
        }
    }

    /// wait_us 200,000 on 20 connections: a server that waits for one connection at a time cannot
    /// answer the 20th before 20 × 200 ms however fast the machine; a concurrent one answers all
    /// about 200 ms after they were sent (the bound is the serial floor, not a speed).
    #[test]
    fn the_waits_of_20_connections_overlap() {
        for model in ["threads", "tokio-current-thread", "tokio-multi-thread"] {
            let server = serve(model, 200_000);
            let started = Instant::now();
            let mut streams: Vec<TcpStream> = (0..20).map(|_| server.connect()).collect();
            for (i, stream) in streams.iter_mut().enumerate() {
                send(stream, i as u32, b"overlap");
            }
            for (i, stream) in streams.iter_mut().enumerate() {
                expect_reply(stream, i as u32, b"overlap");
            }
            assert!(started.elapsed() < Duration::from_millis(20 * 200), "{model}: {:?}, as if one after another", started.elapsed());
        }
    }

    fn thread_ids() -> std::collections::BTreeSet<u64> {
        std::fs::read_dir("/proc/self/task").unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect()
    }

    /// threads makes an OS thread per open connection; the current-thread runtime does not (40
    /// connections, one exchange each so that every one is being served).
    #[test]
    fn threads_makes_an_os_thread_per_open_connection_and_the_event_loop_does_not() {
        const OPEN: usize = 40;
        for model in ["threads", "tokio-current-thread"] {
            let mut server = serve(model, 0);
            // By thread id, not the process's count: the other tests of this binary run beside
            // this one in the same process, and a thread of theirs that ends in between made the
            // count read 18 more with 40 open (29 before, 47 after) under load.
            let before = thread_ids();
            let mut streams: Vec<TcpStream> = (0..OPEN).map(|_| server.connect()).collect();
            for (i, stream) in streams.iter_mut().enumerate() {
                send(stream, i as u32, b"t");
                expect_reply(stream, i as u32, b"t");
            }
            let born = thread_ids().difference(&before).count();
            drop(streams);
            let peak = server.stats(0)["extra"]["threads_peak"].as_u64().unwrap();
            if model == "threads" {
                assert!(born >= OPEN && peak >= 1, "threads: {born} threads started with {OPEN} open");
            } else {
                assert!(born < 3, "{model}: {born} threads started with {OPEN} open");
            }
        }
    }

    #[test]
    fn bad_arguments_are_refused() {
        for extra in [["--wait-us", "10000001"], ["--port", "70000"], ["--workers", "2"], ["--wait-us", "-1"]] {
            let mut args: Vec<String> = ["echo-server", "--model", "seq"].map(String::from).to_vec();
            args.extend(extra.map(String::from));
            let outcome = crate::workloads::dispatch(&Call::parse(&args).unwrap(), &mut Conversation::new(&b""[..], Vec::new()));
            assert!(matches!(outcome, Err(Failure::BadArguments(_))), "{extra:?}: {outcome:?}");
        }
    }
}
