defmodule Parbench.DigestTest do
  use ExUnit.Case, async: true
  alias Parbench.Digest

  test "fnv1a64 of the empty string is the offset basis" do
    assert Digest.fnv1a64("") == 0xCBF29CE484222325
  end

  test "fnv1a64 of \"a\" is af63dc4c8601ec8c" do
    assert Digest.fnv1a64("a") == 0xAF63DC4C8601EC8C
  end

  test "the order-free digest ignores order" do
    assert Digest.order_free(["x", "yz", "a"]) == Digest.order_free(["a", "x", "yz"])
  end

  test "SplitMix64 bytes(1, 0, 16) = c15c0289ec2d0a9167ec8e65a18debbe" do
    assert Base.encode16(Digest.splitmix64_bytes(1, 0, 16), case: :lower) == "c15c0289ec2d0a9167ec8e65a18debbe"
  end

  test "SplitMix64 bytes truncate to n" do
    assert Digest.splitmix64_bytes(1, 0, 5) == binary_part(Digest.splitmix64_bytes(1, 0, 16), 0, 5)
  end
end
