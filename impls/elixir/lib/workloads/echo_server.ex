defmodule Parbench.Workloads.EchoServer do
  @moduledoc """
  echo-server (workloads/echo-server.md): a TCP server on 127.0.0.1 that answers each request with
  its payload reversed after wait_us µs, in `seq` or with a BEAM process per connection over
  `:gen_tcp`, spawned by one acceptor (`spawn`) or by one per scheduler (`acceptor-pool`). It is served, not timed: the conversation is docs/protocol.md's.
  """
  use Parbench.Workload
  alias Parbench.Protocol

  @max_payload 65_536
  @max_wait_us 10_000_000
  # the kernel caps it at net.core.somaxconn
  @backlog 4096
  # A stats line waits (this long at most) until every connection it counted is closed on the
  # server's side: the client may read the last reply before the server counts it.
  @settle_ms 2000
  @accepted 1
  @replies 2
  @open 3

  @details %{
    "seq" => "one connection at a time in one BEAM process: the accept loop serves a connection to its end " <>
               "(:gen_tcp passive, recv of exact lengths) before it accepts the next",
    "spawn" => "one BEAM process per connection (spawned by one acceptor, made the socket's controlling process) " <>
                 "over the VM's schedulers, one per logical CPU; :gen_tcp passive, recv of exact lengths; " <>
                 "the wait a receive-after timer (1 ms granularity)",
    "acceptor-pool" => "one acceptor process per online scheduler (as Ranch's acceptors), all blocking in " <>
                         ":gen_tcp.accept on the shared listener, each spawning a BEAM process per connection " <>
                         "served as in spawn"
  }

  @impl true
  def name, do: "echo-server"
  @impl true
  def params, do: ["wait_us", "port"]
  @impl true
  def models do
    %{"seq" => %{family: "seq", detail: @details["seq"]}, "spawn" => %{family: "green", detail: @details["spawn"]},
      "acceptor-pool" => %{family: "green", detail: @details["acceptor-pool"]}}
  end

  @impl true
  def prepare(_model, _options, _workers), do: throw({:bad_args, "echo-server is a server: it is served, not timed"})
  @impl true
  def run(_context), do: nil
  @impl true
  def summarize(_result, _context), do: {0, "", %{}}
  @impl true
  def ceiling(_context), do: %{}

  @doc "The spec's reply: the request's header, then its payload back to front."
  def reply_to(header, payload), do: [header, payload |> :binary.bin_to_list() |> Enum.reverse()]

  @doc """
  Serves `model` until `io.next` answers `:eof`: listen, the ready line, one stats line per variant
  (`io.next.(j)` gives repetition j's, `io.emit.(line)` prints a line). The CLI's io is stdin and stdout.
  """
  def serve(model, options, io \\ standard_io()) do
    wait_ms = bounded(options, "wait-us", @max_wait_us) |> div_ceil(1000)
    port = bounded(options, "port", 65_535)
    listen_options = [:binary, packet: :raw, active: false, reuseaddr: true, backlog: @backlog, ip: {127, 0, 0, 1}, nodelay: true]

    listener =
      case :gen_tcp.listen(port, listen_options) do
        {:ok, listener} -> listener
        {:error, reason} -> throw({:fault, "echo-server cannot listen on 127.0.0.1:#{port}: #{:inet.format_error(reason)}"})
      end

    tally = :counters.new(3, [:atomics])
    start_acceptors(listener, model, wait_ms, tally)
    {:ok, bound} = :inet.port(listener)
    io.emit.(Protocol.encode_json(%{ready: "none", port: bound, extra: %{model_detail: @details[model]}}, [:ready, :port, :extra]))
    answer(io, tally, 0)
    :gen_tcp.close(listener)
    :ok
  end

  defp standard_io, do: %{next: &Protocol.read_variant(:stdio, &1), emit: &IO.puts/1}

  defp div_ceil(us, per), do: div(us + per - 1, per)

  defp bounded(options, name, high) do
    value = Protocol.integer_option(options, name, 0)
    unless value in 0..high, do: throw({:bad_args, "--#{name} must be from 0 to #{high}, got #{value}"})
    value
  end

  defp answer(io, tally, j) do
    case io.next.(j) do
      :eof ->
        :ok

      variant ->
        settle(tally, System.monotonic_time(:millisecond) + @settle_ms)
        accepted = :counters.get(tally, @accepted)
        replies = :counters.get(tally, @replies)
        :counters.sub(tally, @accepted, accepted)
        :counters.sub(tally, @replies, replies)
        extra = %{accepted: accepted, replies: replies, threads_peak: os_threads()}
        io.emit.(Protocol.encode_json(%{rep: variant, items: replies, checksum: "served", extra: extra}, [:rep, :items, :checksum, :extra]))
        answer(io, tally, j + 1)
    end
  end

  defp settle(tally, deadline) do
    if :counters.get(tally, @open) > 0 and System.monotonic_time(:millisecond) < deadline do
      Process.sleep(1)
      settle(tally, deadline)
    end
  end

  @doc "The VM's OS threads (/proc/self/status): schedulers, dirty schedulers, async threads."
  def os_threads do
    case Regex.run(~r/^Threads:\s+(\d+)/m, File.read!("/proc/self/status")) do
      [_, count] -> String.to_integer(count)
      _ -> 0
    end
  end

  # seq and spawn: one acceptor, the listener's owner. acceptor-pool: one per online scheduler,
  # so that a burst of connects is taken by as many schedulers at once; the listener stays this
  # process's, which outlives them all.
  defp start_acceptors(listener, "acceptor-pool", wait_ms, tally) do
    for _ <- 1..:erlang.system_info(:schedulers_online), do: spawn(fn -> accept_loop(listener, "acceptor-pool", wait_ms, tally) end)
  end

  defp start_acceptors(listener, model, wait_ms, tally) do
    acceptor = spawn(fn -> accept_loop(listener, model, wait_ms, tally) end)
    :ok = :gen_tcp.controlling_process(listener, acceptor)
  end

  defp accept_loop(listener, model, wait_ms, tally) do
    case :gen_tcp.accept(listener) do
      {:ok, socket} ->
        :counters.add(tally, @accepted, 1)
        :counters.add(tally, @open, 1)
        hand_over(socket, model, wait_ms, tally)
        accept_loop(listener, model, wait_ms, tally)

      {:error, :closed} ->
        :ok

      {:error, reason} ->
        # out of descriptors or ports: keep serving the others
        IO.puts(:stderr, "echo-server accept: #{inspect(reason)}")
        Process.sleep(1)
        accept_loop(listener, model, wait_ms, tally)
    end
  end

  defp hand_over(socket, "seq", wait_ms, tally), do: serve_connection(socket, wait_ms, tally)

  defp hand_over(socket, _spawn_or_pool, wait_ms, tally) do
    pid = spawn(fn -> receive(do: (:yours -> serve_connection(socket, wait_ms, tally))) end)
    :ok = :gen_tcp.controlling_process(socket, pid)
    send(pid, :yours)
  end

  # One connection to its end: exactly 8 header bytes, exactly len payload bytes (a passive
  # socket's recv of a length returns that many), the wait, one send. EOF, a len over the limit
  # or a reset end it quietly.
  defp serve_connection(socket, wait_ms, tally) do
    with {:ok, <<_id::32, length::32>> = header} <- :gen_tcp.recv(socket, 8),
         true <- length <= @max_payload,
         {:ok, payload} <- recv_payload(socket, length) do
      if wait_ms > 0, do: receive(after: (wait_ms -> :ok))

      case :gen_tcp.send(socket, reply_to(header, payload)) do
        :ok ->
          :counters.add(tally, @replies, 1)
          serve_connection(socket, wait_ms, tally)

        {:error, _} ->
          closed(socket, tally)
      end
    else
      _ -> closed(socket, tally)
    end
  end

  defp recv_payload(_socket, 0), do: {:ok, ""}
  defp recv_payload(socket, length), do: :gen_tcp.recv(socket, length)

  defp closed(socket, tally) do
    :gen_tcp.close(socket)
    :counters.sub(tally, @open, 1)
  end
end
