// Link-level credit accounting of every data VL of one port, as synthesizable
// logic (IBA 7.9.4; seed 004 "Link-Level Flow Control"; iba-facts 2 and 3):
// the hardware counterpart of models/link/credits.hpp.
//
// Rules:
// - Credits are 64-byte blocks. FCTBS, FCCL and ABR are 12-bit counters,
//   all arithmetic modulo 4096.
// - Transmitter: FCTBS counts blocks sent; FCCL is the last limit the peer
//   advertised (0 after reset: nothing may go before the first flow-control
//   packet). Credit test: a packet of B blocks may go when
//   (FCCL - (FCTBS + B)) mod 4096 <= 2048.
// - Receiver: ABR counts blocks received and is set to the FCTBS of an
//   arriving flow-control packet; the buffer holds `capacity` blocks and
//   `used` of them are taken; the advertised limit is
//   FCCL = ABR + min(capacity - used, 2048) mod 4096.
// - A received packet that does not fit counts nothing and sets the sticky
//   overflow flag (a lossless link never does that).
//
// Pins (README "Plugging in your own RTL"):
// - clk, rst_n (asynchronous, active low).
// - Register writes while no event is given: reg_we, reg_addr = a VL,
//   reg_wdata = its receive buffer in blocks.
// - One event per clock: ev_valid with ev_op, ev_vl and arguments
//     0 sent      ev_a = blocks               FCTBS += blocks
//     1 flow      ev_a = FCCL, ev_b = FCTBS   a flow-control packet arrived:
//                                             FCCL := ev_a, ABR := ev_b
//     2 received  ev_a = blocks               a data packet went into the buffer
//     3 released  ev_a = blocks               blocks left the buffer
// - Credit test of every VL's head packet, combinational: head_len (LEN_W
//   bits per VL, VL0 lowest, 0 = no packet) -> credit_ok (one bit per VL).
// - Read port, combinational: rd_vl -> rd_fctbs, rd_fccl (held limit),
//   rd_abr, rd_fccl_adv (limit to advertise), rd_used.

module credit_manager #(
    parameter int NUM_VLS = 15,  // data VLs VL0..NUM_VLS-1, at most 15
    parameter int LEN_W = 8,     // head packet length in blocks
    parameter int BUF_W = 25     // receive buffer size in blocks (1 GiB = 2^24 blocks)
) (
    input  logic                     clk,
    input  logic                     rst_n,
    input  logic                     reg_we,
    input  logic [3:0]               reg_addr,
    input  logic [BUF_W-1:0]         reg_wdata,
    input  logic                     ev_valid,
    input  logic [1:0]               ev_op,
    input  logic [3:0]               ev_vl,
    input  logic [11:0]              ev_a,
    input  logic [11:0]              ev_b,
    input  logic [NUM_VLS*LEN_W-1:0] head_len,
    output logic [NUM_VLS-1:0]       credit_ok,
    input  logic [3:0]               rd_vl,
    output logic [11:0]              rd_fctbs,
    output logic [11:0]              rd_fccl,
    output logic [11:0]              rd_abr,
    output logic [11:0]              rd_fccl_adv,
    output logic [BUF_W-1:0]         rd_used,
    output logic                     overflow
);
  localparam logic [11:0] MAX_ADVERTISED = 12'd2048;  // half the counter space (iba-facts 2)
  localparam logic [1:0] EV_SENT = 2'd0;
  localparam logic [1:0] EV_FLOW = 2'd1;
  localparam logic [1:0] EV_RECEIVED = 2'd2;

  logic [11:0] fctbs[16];
  logic [11:0] fccl[16];
  logic [11:0] abr[16];
  logic [BUF_W-1:0] used[16];
  logic [BUF_W-1:0] capacity[16];

  // ---- credit test of each head packet ----
  for (genvar v = 0; v < NUM_VLS; v++) begin : g_test
    logic [LEN_W-1:0] len;
    logic [11:0] left;
    assign len = head_len[v*LEN_W+:LEN_W];
    assign left = fccl[v] - (fctbs[v] + 12'(len));
    assign credit_ok[v] = len != 0 && left <= MAX_ADVERTISED;
  end

  // ---- read port ----
  logic [BUF_W-1:0] free_blocks;
  always_comb begin
    rd_fctbs = fctbs[rd_vl];
    rd_fccl = fccl[rd_vl];
    rd_abr = abr[rd_vl];
    rd_used = used[rd_vl];
    free_blocks = capacity[rd_vl] - used[rd_vl];
    rd_fccl_adv = abr[rd_vl] + (free_blocks > BUF_W'(MAX_ADVERTISED) ? MAX_ADVERTISED : free_blocks[11:0]);
  end

  // ---- events ----
  logic [BUF_W-1:0] ev_blocks;
  assign ev_blocks = BUF_W'(ev_a);

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      for (int v = 0; v < 16; v++) begin
        fctbs[v] <= '0;
        fccl[v] <= '0;
        abr[v] <= '0;
        used[v] <= '0;
        capacity[v] <= '0;
      end
      overflow <= 1'b0;
    end else if (ev_valid) begin
      case (ev_op)
        EV_SENT: fctbs[ev_vl] <= fctbs[ev_vl] + ev_a;
        EV_FLOW: begin
          fccl[ev_vl] <= ev_a;
          abr[ev_vl] <= ev_b;
        end
        EV_RECEIVED:
        if (used[ev_vl] + ev_blocks > capacity[ev_vl]) overflow <= 1'b1;
        else begin
          used[ev_vl] <= used[ev_vl] + ev_blocks;
          abr[ev_vl] <= abr[ev_vl] + ev_a;
        end
        default: used[ev_vl] <= used[ev_vl] > ev_blocks ? used[ev_vl] - ev_blocks : '0;
      endcase
    end else if (reg_we) begin
      capacity[reg_addr] <= reg_wdata;
    end
  end
endmodule
