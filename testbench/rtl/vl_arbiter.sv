// The IBA data-VL arbiter as synthesizable logic (IBA 7.6.9; seed 004
// "Detailed Description of VL Arbitration"; iba-facts 3): the hardware
// counterpart of models/link/vl_arbiter.cpp, grant for grant, under both of
// its weight policies.
//
// Rules (the model's, see vl_arbiter.hpp):
// - VL15 first: a decision with vl15_req set grants VL15 and leaves the
//   tables' state alone.
// - Two tables, high and low, of up to DEPTH {VL, weight} entries; a weight
//   counts 64-byte blocks per turn, 0 = the entry is skipped. An entry keeps
//   the turn while its used count is below its weight and its VL requests;
//   otherwise the turn moves to the next entry that can send (one entry per
//   clock). Overshoot policy: the last packet of a turn may overshoot, the
//   overshoot is forgotten. Deficit policy: it is carried into the entry's
//   next turn, and a search that finds nothing while a table has a request
//   goes round again.
// - LimitOfHighPriority: limit x 64 blocks of high priority may go before low
//   gets a turn; 255 = unbounded; when the limit is used up and low has
//   nothing, high goes on. A low grant reloads the limit.
// - A decision without any request ("idle") ends the turn in progress
//   (overshoot) or walks each table round once (deficit), as the model does.
//
// Pins (README "Plugging in your own arbiter RTL"):
// - clk, rst_n (asynchronous, active low).
// - Register writes (reg_we, reg_addr, reg_wdata) while ready, one per clock:
//     0x00 + i  high entry i: {4'b0, VL[3:0], weight[7:0]} (the two bytes of
//               an IBA VLArbitrationTable entry, iba-facts 3)
//     0x40 + i  low entry i, same layout
//     0x80      high table size (entries in use), at most DEPTH
//     0x81      low table size
//     0x82      LimitOfHighPriority, 0-255
//     0x83      control: bit 0 = deficit policy. Writing it commits the
//               configuration: the turns, carries and limit restart and the
//               tables are scanned (DEPTH clocks, ready low meanwhile).
// - A decision: req_start for one clock while ready, with vl15_req, req (one
//   bit per data VL: its head packet may go now) and req_len (its length in
//   64-byte blocks, LEN_W bits per VL, VL0 lowest). They are sampled then.
//   One or more clocks later (one when the entry holding the turn grants),
//   done is high for one clock with gnt_valid and gnt_vl.
//
// The define HCASIM_RTL_BUG_WEIGHT builds a deliberately wrong variant (an
// entry may send while its used count equals its weight, one turn too many)
// for the tests that show the lock-step check catching it.

module vl_arbiter #(
    parameter int NUM_VLS = 15,  // data VLs VL0..NUM_VLS-1, at most 15
    parameter int DEPTH = 64,    // entries per table, at most 64 (VLArbHighCap / VLArbLowCap)
    parameter int LEN_W = 8      // packet length in 64-byte blocks
) (
    input  logic                     clk,
    input  logic                     rst_n,
    input  logic                     reg_we,
    input  logic [7:0]               reg_addr,
    input  logic [15:0]              reg_wdata,
    input  logic                     req_start,
    input  logic                     vl15_req,
    input  logic [NUM_VLS-1:0]       req,
    input  logic [NUM_VLS*LEN_W-1:0] req_len,
    output logic                     ready,
    output logic                     done,
    output logic                     gnt_valid,
    output logic [3:0]               gnt_vl
);
  localparam int IDX_W = DEPTH > 1 ? $clog2(DEPTH) : 1;
  localparam int SIZE_W = $clog2(DEPTH + 1);
  localparam int USED_W = LEN_W + 2;  // holds weight - 1 + one packet
  localparam int BUDGET_W = 16;       // signed: 254 x 64 blocks, and one packet below zero
  localparam logic [7:0] HIGH_LIMIT_UNBOUNDED = 8'd255;  // iba-facts 3
  localparam logic [3:0] VL15 = 4'd15;
  localparam logic HIGH = 1'b0;
  localparam logic LOW = 1'b1;

  typedef enum logic [1:0] {
    S_IDLE,
    S_COMMIT,
    S_PICK
  } state_t;

  // Configuration.
  logic [3:0] tbl_vl[2][DEPTH];
  logic [7:0] tbl_w[2][DEPTH];
  logic [SIZE_W-1:0] size[2];
  logic [7:0] high_limit;
  logic deficit;
  logic [15:0] vl_mask[2];  // VLs named by an entry of weight > 0 (built by the commit scan)

  // Turns.
  logic [IDX_W-1:0] cur[2];
  logic [USED_W-1:0] used[2];
  logic [LEN_W-1:0] carry[2][DEPTH];
  logic signed [BUDGET_W-1:0] budget;
  logic high_exhausted;

  // The decision in progress. The search works on "the question": the
  // inputs themselves in the clock that starts it, what was latched then in
  // the clocks after (so a grant at the entry holding the turn takes one clock).
  state_t state;
  logic t;                // table being searched
  logic [SIZE_W-1:0] k;   // search step: 0 = the entry holding the turn, 1..n the next ones (n = it again)
  logic idle_walk;        // no VL requests: the round passes once through each table
  logic [15:0] r_req;
  logic [LEN_W-1:0] r_len[16];
  logic [IDX_W-1:0] scan;

  logic [15:0] req_in;
  logic [16*LEN_W-1:0] len_in;  // req_len widened to 16 VLs
  logic starting;               // a search starts in this clock
  logic q_t, q_idle;
  logic [SIZE_W-1:0] q_k;
  logic [15:0] q_req;
  always_comb begin
    req_in = 16'(req);
    len_in = {{((16 - NUM_VLS) * LEN_W) {1'b0}}, req_len};
    starting = state == S_IDLE && !reg_we && req_start && !vl15_req && (req_in != 0 || deficit);
    // Low waits when high used up its limit and low has a request.
    q_t = starting ? req_in != 0 && high_limit != HIGH_LIMIT_UNBOUNDED && high_exhausted &&
                     |(vl_mask[LOW] & req_in) : t;
    q_k = starting ? '0 : k;
    q_req = starting ? req_in : r_req;
    q_idle = starting ? req_in == 0 : idle_walk;
  end

  // ---- one search step ----
  logic [SIZE_W-1:0] n;
  logic [IDX_W-1:0] c, nxt, i;
  logic [USED_W-1:0] u, leave_carry, u_new;
  logic [7:0] w_cur, w_i;
  logic [3:0] vl_i;
  logic [LEN_W-1:0] len_i;
  logic sendable, take;
  logic has_request;      // the table has an entry that could send one of the requests
  logic signed [BUDGET_W-1:0] budget_after;

  always_comb begin
    n = size[q_t];
    c = cur[q_t];
    nxt = ({{(SIZE_W - IDX_W){1'b0}}, c} + 1'b1 == n) ? '0 : c + 1'b1;
    i = (q_k == 0) ? c : nxt;
    u = used[q_t];
    w_cur = tbl_w[q_t][c];
    // Leaving the entry holding the turn: its overshoot is carried (deficit).
    leave_carry = (deficit && u >= {{(USED_W - 8){1'b0}}, w_cur}) ? u - {{(USED_W - 8){1'b0}}, w_cur} : '0;
    if (q_k == 0) u_new = u;
    else if (!deficit) u_new = '0;
    else if (i == c) u_new = leave_carry;
    else u_new = {2'b00, carry[q_t][i]};
    vl_i = tbl_vl[q_t][i];
    w_i = tbl_w[q_t][i];
    len_i = starting ? len_in[vl_i*LEN_W+:LEN_W] : r_len[vl_i];
    sendable = w_i != 0 && {28'd0, vl_i} < NUM_VLS && q_req[vl_i];
`ifdef HCASIM_RTL_BUG_WEIGHT
    take = sendable && u_new <= {{(USED_W - 8){1'b0}}, w_i};
`else
    take = sendable && u_new < {{(USED_W - 8){1'b0}}, w_i};
`endif
    has_request = |(vl_mask[q_t] & q_req);
    budget_after = budget - BUDGET_W'(len_i);
  end

  assign ready = state == S_IDLE;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state <= S_IDLE;
      size <= '{default: '0};
      high_limit <= '0;
      deficit <= 1'b0;
      vl_mask <= '{default: '0};
      cur <= '{default: '0};
      used <= '{default: '0};
      budget <= '0;
      high_exhausted <= 1'b0;
      t <= 1'b0;
      k <= '0;
      idle_walk <= 1'b0;
      r_req <= '0;
      scan <= '0;
      done <= 1'b0;
      gnt_valid <= 1'b0;
      gnt_vl <= '0;
    end else begin
      done <= 1'b0;
      if (state == S_COMMIT) begin
        for (int tb = 0; tb < 2; tb++) begin
          if ({{(32 - IDX_W){1'b0}}, scan} < {{(32 - SIZE_W){1'b0}}, size[tb]} && tbl_w[tb][scan] != 0 &&
              {28'd0, tbl_vl[tb][scan]} < NUM_VLS)
            vl_mask[tb][tbl_vl[tb][scan]] <= 1'b1;
          carry[tb][scan] <= '0;
        end
        scan <= scan + 1'b1;
        if ({{(32 - IDX_W){1'b0}}, scan} == DEPTH - 1) state <= S_IDLE;
      end else if (state == S_IDLE && reg_we) begin
        if (reg_addr[7] == 1'b0) begin
          if ({26'd0, reg_addr[5:0]} < DEPTH) begin
            tbl_vl[reg_addr[6]][reg_addr[IDX_W-1:0]] <= reg_wdata[11:8];
            tbl_w[reg_addr[6]][reg_addr[IDX_W-1:0]] <= reg_wdata[7:0];
          end
        end else begin
          case (reg_addr[1:0])
            2'd0, 2'd1:
            size[reg_addr[0]] <= {16'd0, reg_wdata} > DEPTH ? SIZE_W'(DEPTH) : reg_wdata[SIZE_W-1:0];
            2'd2: high_limit <= reg_wdata[7:0];
            default: begin
              // Commit: restart the turns and scan the tables.
              deficit <= reg_wdata[0];
              vl_mask <= '{default: '0};
              cur <= '{default: '0};
              used <= '{default: '0};
              budget <= BUDGET_W'({high_limit, 6'd0});
              high_exhausted <= 1'b0;
              scan <= '0;
              state <= S_COMMIT;
            end
          endcase
        end
      end else if (state == S_IDLE && req_start && !starting) begin
        // VL15 first; or no request at all under overshoot: the turn in
        // progress ends (the model's idle round).
        done <= 1'b1;
        gnt_valid <= vl15_req;
        gnt_vl <= VL15;
        if (!vl15_req) used <= '{default: '0};
      end else if (starting || state == S_PICK) begin
        if (starting) begin
          r_req <= req_in;
          for (int v = 0; v < 16; v++) r_len[v] <= len_in[v*LEN_W+:LEN_W];
          idle_walk <= q_idle;
        end
        state <= S_PICK;
        t <= q_t;
        if (n != 0) begin
          if (q_k != 0) begin
            cur[q_t] <= i;
            if (deficit) begin
              if (i == c) carry[q_t][c] <= '0;
              else begin
                carry[q_t][c] <= leave_carry[LEN_W-1:0];
                carry[q_t][i] <= '0;
              end
            end
          end
          used[q_t] <= take ? u_new + USED_W'(len_i) : u_new;
        end
        // The step's outcome: a grant, the next entry, another round, or this
        // table found nothing (an empty table finds nothing at once).
        if (n != 0 && take) begin
          if (q_t == HIGH) begin
            if (high_limit != HIGH_LIMIT_UNBOUNDED && !high_exhausted) begin
              budget <= budget_after;
              if (budget_after <= 0) high_exhausted <= 1'b1;
            end
          end else begin
            budget <= BUDGET_W'({high_limit, 6'd0});
            high_exhausted <= 1'b0;
          end
          done <= 1'b1;
          gnt_valid <= 1'b1;
          gnt_vl <= vl_i;
          state <= S_IDLE;
        end else if (n != 0 && q_k != n) k <= q_k + 1'b1;
        else if (n != 0 && !q_idle && deficit && has_request) k <= '0;  // round again (work conserving)
        else if (q_t == HIGH) begin
          t <= LOW;
          k <= '0;
        end else begin
          done <= 1'b1;
          gnt_valid <= 1'b0;
          state <= S_IDLE;
        end
      end
    end
  end

  // reg_wdata[15:12] is reserved (the top nibble of an IBA entry's first byte).
  logic unused_ok;
  assign unused_ok = &{1'b0, reg_wdata[15:12]};
endmodule
