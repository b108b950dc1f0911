defmodule Parbench.Workloads.EchoServerTest do
  @moduledoc """
  echo-server (workloads/echo-server.md): each model served in this VM, its stdin and stdout
  messages to and from the test, spoken to over real sockets: the vector, random payloads, a bad
  len, a short request, the wait, the stats line, the end of stdin.
  """
  use ExUnit.Case, async: false
  alias Parbench.Workloads.EchoServer

  @models Map.keys(EchoServer.models())

  # The server in a process of its own; {pid, port}. Its `io.next` waits for {:line, v} or :eof.
  defp serve(model, wait_us) do
    test = self()
    io = %{next: fn _j -> receive(do: ({:line, variant} -> variant; :eof -> :eof)) end, emit: &send(test, {:out, &1})}
    pid = spawn(fn -> send(test, {:served, EchoServer.serve(model, %{"wait-us" => "#{wait_us}"}, io)}) end)
    assert_receive {:out, ready}, 5000
    %{"ready" => "none", "port" => port, "extra" => %{"model_detail" => _}} = decode(ready)
    {pid, port}
  end

  defp decode(line), do: parse_flat(line)

  # The lines are flat enough to read with a pattern per field: {"key":value,...} with one nested extra.
  defp parse_flat(line) do
    fields = Regex.scan(~r/"(\w+)":("[^"]*"|\d+)/, line) |> Map.new(fn [_, k, v] -> {k, value(v)} end)
    %{"ready" => fields["ready"], "port" => fields["port"], "rep" => fields["rep"], "items" => fields["items"],
      "checksum" => fields["checksum"],
      "extra" => Map.take(fields, ["model_detail", "accepted", "replies", "threads_peak"])}
  end

  defp value("\"" <> rest), do: String.trim_trailing(rest, "\"")
  defp value(digits), do: String.to_integer(digits)

  defp stats(pid, variant) do
    send(pid, {:line, variant})
    assert_receive {:out, line}, 5000
    decode(line)
  end

  defp finish(pid, port) do
    send(pid, :eof)
    assert_receive {:served, :ok}, 5000
    assert {:error, :econnrefused} = :gen_tcp.connect({127, 0, 0, 1}, port, [:binary])
  end

  defp connect(port) do
    {:ok, socket} = :gen_tcp.connect({127, 0, 0, 1}, port, [:binary, active: false, nodelay: true])
    socket
  end

  defp request(id, payload), do: <<id::32, byte_size(payload)::32, payload::binary>>
  defp reply(id, payload), do: IO.iodata_to_binary(EchoServer.reply_to(<<id::32, byte_size(payload)::32>>, payload))

  defp read(socket, size, timeout \\ 20_000), do: :gen_tcp.recv(socket, size, timeout)

  test "the reply is the header then the payload reversed" do
    assert IO.iodata_to_binary(EchoServer.reply_to(<<0, 0, 0, 1, 0, 0, 0, 3>>, "abc")) == <<0, 0, 0, 1, 0, 0, 0, 3, "cba">>
  end

  for model <- @models do
    test "#{model} serves the spec by its rules" do
      model = unquote(model)
      {pid, port} = serve(model, 2000)
      vector = connect(port)
      :ok = :gen_tcp.send(vector, <<0, 0, 0, 1, 0, 0, 0, 3, "abc">>)
      assert {:ok, <<0, 0, 0, 1, 0, 0, 0, 3, "cba">>} = read(vector, 11)
      :gen_tcp.close(vector)

      bad = connect(port)
      :ok = :gen_tcp.send(bad, <<0, 0, 0, 2, 65_537::32>>)
      assert {:error, :closed} = read(bad, 1)
      short = connect(port)
      :ok = :gen_tcp.send(short, <<0, 0, 0, 4, 0, 0, 0, 10, "abc">>)
      :ok = :gen_tcp.shutdown(short, :write)
      assert {:error, :closed} = read(short, 1)
      stats(pid, 0)

      at_once = if model == "seq", do: 1, else: 6
      for _round <- 1..2 do
        sockets = for _ <- 1..at_once, do: connect(port)
        for r <- 0..3 do
          payloads = for k <- 0..(at_once - 1), do: :crypto.strong_rand_bytes(r * 100 + k + 1)
          Enum.zip([sockets, payloads, 0..(at_once - 1)]) |> Enum.each(fn {s, p, k} -> :ok = :gen_tcp.send(s, request(1000 * k + r, p)) end)
          Enum.zip([sockets, payloads, 0..(at_once - 1)])
          |> Enum.each(fn {s, p, k} -> assert read(s, 8 + byte_size(p)) == {:ok, reply(1000 * k + r, p)} end)
        end
        Enum.each(sockets, &:gen_tcp.close/1)
      end
      replies = 2 * 4 * at_once
      assert %{"rep" => 7, "items" => ^replies, "checksum" => "served", "extra" => %{"replies" => ^replies, "accepted" => accepted}} =
               stats(pid, 7)
      assert accepted == 2 * at_once
      assert %{"items" => 0} = stats(pid, 8)

      # wait_us 2,000 with 20 connections kept open: every one answered (in reverse order) by
      # spawn and acceptor-pool; seq answers only the first until it is closed.
      open = for k <- 0..19, do: connect(port) |> tap(&(:ok = :gen_tcp.send(&1, request(k, "wait"))))
      served = if model == "seq", do: 1, else: 20
      for k <- (served - 1)..0//-1, do: assert(read(Enum.at(open, k), 12) == {:ok, reply(k, "wait")})
      if served < 20 do
        assert {:error, :timeout} = read(Enum.at(open, 1), 1, 300)
        :gen_tcp.close(hd(open))
        assert read(Enum.at(open, 1), 12) == {:ok, reply(1, "wait")}
      end

      finish(pid, port)
      Enum.each(open, &:gen_tcp.close/1)
    end
  end

  # wait_us 200,000 on 20 connections: a server that waits for one connection at a time cannot
  # answer the 20th before 20 × 200 ms however fast the machine; these answer all about 200 ms
  # after they were sent (the bound is the serial floor, not a speed).
  for model <- ["spawn", "acceptor-pool"] do
    test "#{model} overlaps the waits of 20 connections" do
      {pid, port} = serve(unquote(model), 200_000)
      started = System.monotonic_time(:millisecond)
      sockets = for k <- 0..19, do: connect(port) |> tap(&(:ok = :gen_tcp.send(&1, request(k, "overlap"))))
      sockets |> Enum.with_index() |> Enum.each(fn {s, k} -> assert read(s, 15) == {:ok, reply(k, "overlap")} end)
      assert System.monotonic_time(:millisecond) - started < 20 * 200
      Enum.each(sockets, &:gen_tcp.close/1)
      finish(pid, port)
    end
  end

  test "bad arguments are refused" do
    for {name, value} <- [{"wait-us", "10000001"}, {"port", "70000"}, {"wait-us", "-1"}] do
      assert catch_throw(EchoServer.serve("seq", %{name => value})) |> elem(0) == :bad_args
    end
  end

  # The next request stays in the kernel while the one before it waits: the server socket's
  # receive queue (/proc/net/tcp rx_queue) still holds all 11 bytes of the second request.
  for model <- @models do
    test "#{model} reads nothing ahead of a reply: a pipelined request stays in the kernel during the wait" do
      {pid, port} = serve(unquote(model), 150_000)
      socket = connect(port)
      {:ok, client_port} = :inet.port(socket)
      :ok = :gen_tcp.send(socket, request(1, "abc") <> request(2, "def"))
      Process.sleep(50)
      assert receive_queue(port, client_port) == 11
      assert read(socket, 11) == {:ok, reply(1, "abc")}
      assert read(socket, 11) == {:ok, reply(2, "def")}
      :gen_tcp.close(socket)
      finish(pid, port)
    end
  end

  defp receive_queue(server_port, client_port) do
    local = "0100007F:" <> hex_port(server_port)
    remote = "0100007F:" <> hex_port(client_port)

    "/proc/net/tcp"
    |> File.read!()
    |> String.split("\n")
    |> Enum.map(&String.split/1)
    |> Enum.find_value(fn
      [_slot, ^local, ^remote, _state, queues | _] -> queues |> String.split(":") |> List.last() |> String.to_integer(16)
      _ -> nil
    end)
  end

  defp hex_port(port), do: port |> Integer.to_string(16) |> String.pad_leading(4, "0")

  # A BEAM process per connection and no OS thread: the VM's Threads stay what they were with
  # 40 connections open and served.
  for model <- ["spawn", "acceptor-pool"] do
    test "#{model} makes no OS thread for 40 open connections" do
      {pid, port} = serve(unquote(model), 0)
      before = EchoServer.os_threads()
      sockets =
        for k <- 0..39 do
          socket = connect(port)
          :ok = :gen_tcp.send(socket, request(k, "t"))
          assert read(socket, 9) == {:ok, reply(k, "t")}
          socket
        end

      assert EchoServer.os_threads() <= before + 2
      Enum.each(sockets, &:gen_tcp.close/1)
      assert %{"extra" => %{"accepted" => 40, "replies" => 40}} = stats(pid, 1)
      finish(pid, port)
    end
  end

  # As `run` starts it: a VM of its own, its stdin a FIFO the test holds.
  test "run: a stdin line gives a stats line, and its end exits 0 within 2 s, a connection open, with nothing left running" do
    fifo = Path.join(System.tmp_dir!(), "parbench-echo-#{System.unique_integer([:positive])}")
    {_, 0} = System.cmd("mkfifo", [fifo])
    code_paths = Enum.flat_map(Path.wildcard(Path.expand("../_build/test/lib/*/ebin", __DIR__)), &["-pa", &1])
    argv = code_paths ++ ["-e", "Parbench.CLI.main(System.argv())", "--", "echo-server", "--model", "spawn", "--wait-us", "0"]
    # sh, elixir, erl and erlexec each exec the next, so the port's OS pid is the VM's
    shell = ["-c", "exec \"$0\" \"$@\" < #{fifo}", System.find_executable("elixir") | argv]
    vm = Port.open({:spawn_executable, "/bin/sh"}, [:binary, :exit_status, {:line, 4096}, args: shell])
    {:ok, stdin} = File.open(fifo, [:write])
    os_pid = Port.info(vm)[:os_pid]

    try do
      assert_receive {^vm, {:data, {:eol, ready}}}, 20_000
      %{"port" => port} = decode(ready)
      socket = connect(port)
      :ok = :gen_tcp.send(socket, request(1, "abc"))
      assert read(socket, 11) == {:ok, reply(1, "abc")}
      assert File.exists?("/proc/#{os_pid}/status")
      IO.write(stdin, "4\n")
      assert_receive {^vm, {:data, {:eol, line}}}, 10_000
      assert %{"rep" => 4, "items" => 1, "extra" => %{"accepted" => 1}} = decode(line)
      File.close(stdin)
      assert_receive {^vm, {:exit_status, 0}}, 2_000
      assert {:error, :closed} = read(socket, 1, 2_000)
      refute File.exists?("/proc/#{os_pid}/status")
    after
      File.rm(fifo)
      System.cmd("kill", ["-9", "#{os_pid}"], stderr_to_stdout: true)
    end
  end
end
