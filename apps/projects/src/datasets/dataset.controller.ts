import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EvaluateDatasetCommand, ListEvaluationsCommand, ScannerRpc, StageDatasetCommand } from '@bastion/contracts';
import { Handles } from '@bastion/messaging';
import { DatasetService } from './dataset.service';

@Controller()
export class DatasetController {
  constructor(private readonly datasets: DatasetService) {}

  @Handles(ScannerRpc.stageDataset)
  stage(@Payload() cmd: StageDatasetCommand) {
    return this.datasets.stage(cmd);
  }

  @Handles(ScannerRpc.evaluate)
  evaluate(@Payload() cmd: EvaluateDatasetCommand) {
    return this.datasets.evaluate(cmd);
  }

  @Handles(ScannerRpc.listEvaluations)
  listEvaluations(@Payload() cmd: ListEvaluationsCommand) {
    return this.datasets.listEvaluations(cmd);
  }
}
